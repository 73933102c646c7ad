"""Helpers the reference scripts share (each runs in its own venv; this file needs only the
standard library, as it is imported before the venv exists)."""
import os
import subprocess
import sys


def reexec_in_venv(venv, script, install, env=None):
    """Re-executes the running script with `venv`'s Python. A venv without its `.ready` stamp is
    created first and `install(pip)` runs in it (`pip` being the `pip install --quiet` command)."""
    if os.path.realpath(sys.prefix) == os.path.realpath(venv):
        return
    python = os.path.join(venv, "bin", "python")
    if not os.path.exists(os.path.join(venv, ".ready")):
        print(f"{script}: creating", venv, file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        install([python, "-m", "pip", "install", "--quiet"])
        open(os.path.join(venv, ".ready"), "w").close()
    os.execve(python, [python, *sys.argv], os.environ if env is None else env)


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
