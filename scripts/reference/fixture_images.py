"""Helpers the reference scripts share (each runs in its own venv; this file needs only the
standard library)."""
import os


def images(paths):
    """The PNG and JPEG files among `paths`, folders walked in sorted order."""
    for p in paths:
        if os.path.isdir(p):
            for root, _, files in os.walk(p):
                for f in sorted(files):
                    if f.lower().endswith((".jpg", ".jpeg", ".png")):
                        yield os.path.join(root, f)
        else:
            yield p


def fixture_key(path):
    """The path relative to the fixtures folder (as the tests look it up in any checkout)."""
    return path.split("fixtures/", 1)[-1]
