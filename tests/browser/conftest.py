"""Fixtures for the browser tests: the server, fake-camera files, and Chromium from Debian.

The fake camera shows a fixture photo (the first JPEG of faces/identity, sorted) cropped to
640×480 by ffmpeg; the same crop is also written as a lossless PNG, the reference picture for
comparing what the page received with what the server answers for a still.
"""
import base64, json, os, pathlib, subprocess, tempfile

import pytest
from playwright.sync_api import sync_playwright

FIXTURES = pathlib.Path(os.environ.get("SENTIO_FIXTURES", "../shared/fixtures"))
SHOTS = pathlib.Path(os.environ.get("SENTIO_SCREENSHOTS", "out/browser"))
SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}
CROP = "scale=640:480:force_original_aspect_ratio=increase,crop=640:480"


def face_photo():
    folder = FIXTURES / "faces" / "identity"
    if not folder.is_dir():
        raise RuntimeError(f"missing fixture folder {folder} (set SENTIO_FIXTURES)")  # never a silent skip
    for person in sorted(folder.iterdir()):
        photos = sorted(p for p in person.iterdir() if p.suffix.lower() == ".jpg") if person.is_dir() else []
        if photos:
            return photos[0]
    raise RuntimeError(f"no JPEG under {folder}")


@pytest.fixture(scope="session")
def media():
    out = pathlib.Path(tempfile.mkdtemp(prefix="sentio-browser-"))
    photo = face_photo()
    y4m, png = out / "face.y4m", out / "face.png"
    subprocess.run(["ffmpeg", "-loglevel", "error", "-loop", "1", "-i", str(photo), "-vf", CROP, "-pix_fmt", "yuv420p",
                    "-r", "30", "-frames:v", "30", str(y4m)], check=True)
    subprocess.run(["ffmpeg", "-loglevel", "error", "-i", str(photo), "-vf", CROP, "-frames:v", "1", str(png)], check=True)
    return {"y4m": y4m, "png": png, "photo": photo}


@pytest.fixture(scope="session")
def server():
    binary = os.environ.get("SENTIO_BIN", ".build/release/sentio")
    data = tempfile.mkdtemp(prefix="sentio-browser-data-")
    args = [binary, "serve", "--port", "0", "--json", "--data-dir", data, "--log-level", "error"]
    if os.environ.get("SENTIO_PAGES"):  # pages from the source folder (while editing them)
        args += ["--pages", os.environ["SENTIO_PAGES"]]
    process = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    if not line:
        raise RuntimeError(f"the server did not start: {binary}")
    yield json.loads(line)["http"]
    process.terminate()
    process.wait()


@pytest.fixture(scope="session")
def browser(media):
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=[
            "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
            f"--use-file-for-fake-video-capture={media['y4m']}", "--no-sandbox"])
        print(f"\nChromium {browser.version}")
        yield browser
        browser.close()


def shoot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def blob_bytes(page, expression):
    """The bytes of a Blob held by the page."""
    data = page.evaluate("""async (expr) => {
        const blob = eval(expr);
        const buf = new Uint8Array(await blob.arrayBuffer());
        let s = ""; for (let i = 0; i < buf.length; i += 0x8000) s += String.fromCharCode.apply(null, buf.subarray(i, i + 0x8000));
        return btoa(s);
    }""", expression)
    return base64.b64decode(data)


# The IV scanner's pages need a signed-in player: a server of their own whose data folder is
# known, with a player account made by `sentio admin create` before it starts (the `server`
# fixture above is left as it is for the other tests).
IV_PLAYER = {"username": "ash", "password": "correct horse battery"}


@pytest.fixture(scope="session")
def iv_server():
    binary = os.environ.get("SENTIO_BIN", ".build/release/sentio")
    data = tempfile.mkdtemp(prefix="sentio-browser-iv-")
    subprocess.run([binary, "admin", "create", "--username", IV_PLAYER["username"], "--role", "player", "--data-dir", data],
                   input=IV_PLAYER["password"] + "\n", text=True, check=True, capture_output=True)
    args = [binary, "serve", "--port", "0", "--json", "--data-dir", data, "--log-level", "error"]
    if os.environ.get("SENTIO_PAGES"):
        args += ["--pages", os.environ["SENTIO_PAGES"]]
    process = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    if not line:
        raise RuntimeError(f"the server did not start: {binary}")
    yield {"url": json.loads(line)["http"], "data": data, **IV_PLAYER}
    process.terminate()
    process.wait()
