#!/usr/bin/env python3
"""Whole flows of the applications in WebKit and Firefox (issue 36): what a person does on each
page, end to end through the server, in the engines people carry besides Chromium.

- IV scanner: sign in, choose a fixture screenshot, wait for the read card; its species and CP
  against the fixture's truth (pogo/screens/manifest.tsv).
- Motion arcade, the phone alone: Start, then devicemotion events — constructed samples
  dispatched as the page's `devicemotion` events (`new DeviceMotionEvent(…)`: neither engine has
  motion sensors here, and WebDriver has no sensor emulation) — a flick tilted toward the hoop
  must score, as the Chromium suite's sensor-driven flick does.
- Motion arcade, the big screen: a room opened, its join card and code shown; a phone (a Python
  WebSocket client sending the same samples) joins, and the big screen draws its plane.
- Gestures: the camera is a `canvas.captureStream()` of a fixture hand photo, handed to the page
  in place of `getUserMedia` (the engines' own fake cameras draw no hand); the page's frames go
  through the server and come back with the hand's 21 points.
- The Puzzler's star map is star_map.py's.

Each flow runs at phone and desktop size where the page differs; screenshots go to --out.
Prints a table of flows per engine; exits 1 when one fails.

    xvfb-run -a tests/engines/flows.py --bin .build/release/sentio --out out/engines
"""
import argparse, asyncio, base64, csv, json, math, os, shutil, subprocess, sys, tempfile, threading, time, traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "browser"))
import star_map  # noqa: E402
import motion_traces as traces  # noqa: E402

FIXTURES = os.environ.get("SENTIO_FIXTURES") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "fixtures")
PLAYER = {"username": "misty", "password": "cerulean city gym 7"}
SCREEN = "chrisnoisel_android_28_11.png"
HAND = "faces/hands/mprs_victory.jpg"


class Engine:
    """What a flow needs of a browser beyond star_map's: wait for a condition, click, type, upload."""

    def until(self, expression, timeout=30, what=None):
        deadline = time.time() + timeout
        while True:
            value = self.js("return " + expression)
            if value:
                return value
            if time.time() > deadline:
                raise AssertionError(f"timed out after {timeout} s waiting for {what or expression}")
            time.sleep(0.1)

    def shoot(self, out, name):
        self.png().save(os.path.join(out, f"{self.name}-{name}.png"))


class WebKit(star_map.WebKit, Engine):
    def upload(self, element_id, path):
        from selenium.webdriver.common.by import By
        self.driver.find_element(By.ID, element_id).send_keys(path)


class Firefox(star_map.Firefox, Engine):
    # The page's own globals (window.sentioArcade…): Marionette's default sandbox sees the page
    # through Xray wrappers, without the properties its scripts set.
    def js(self, script, *args): return self.m.execute_script(script, script_args=list(args), sandbox=None)

    def upload(self, element_id, path):
        # Marionette types only into a file input a keyboard can reach; the page's is hidden
        # behind its "Choose screenshots" button, so it is shown for the typing.
        self.js("document.getElementById(arguments[0]).classList.remove('hidden')", element_id)
        self.m.find_element("id", element_id).send_keys(path)
        self.js("document.getElementById(arguments[0]).classList.add('hidden')", element_id)


def fill(browser, element_id, value):
    browser.js("""const e = document.getElementById(arguments[0]); e.value = arguments[1];
        for (const kind of ['input', 'change']) e.dispatchEvent(new Event(kind, {bubbles: true}));""", element_id, value)


def sign_in(browser, base, who=PLAYER):
    browser.go(base + "/account/")
    browser.until("!document.getElementById('sign-in').classList.contains('hidden')", what="the sign-in form")
    fill(browser, "username", who["username"]); fill(browser, "password", who["password"])
    browser.js("document.getElementById('sign-in-button').click()")
    browser.until("!document.getElementById('signed-in').classList.contains('hidden')", what="signed in")


def flow_iv(browser, base, out):
    truth = {row["file"]: row for row in csv.DictReader(open(os.path.join(FIXTURES, "pogo", "screens", "manifest.tsv")), delimiter="\t")}[SCREEN]
    sign_in(browser, base)
    browser.size(*star_map.SIZES["desktop"])
    browser.go(base + "/iv/")
    browser.until("document.getElementById('files') !== null", what="the IV page")
    # The player's trainer level and the day the screenshot was taken (its era's stats), as
    # the Chromium suite gives them (tests/browser/test_iv.py).
    fill(browser, "trainer-level", "28"); fill(browser, "stats-as-of", "2016-12-20")
    browser.upload("files", os.path.abspath(os.path.join(FIXTURES, "pogo", "screens", SCREEN)))
    browser.until("document.querySelector(\".iv-results[data-state='ready']\") !== null", timeout=90, what="the read card")
    card = browser.js("""const c = document.querySelector('article.iv-card'); return {
        species: c.querySelector('.iv-field-species input').value, cp: c.querySelector('.iv-field-cp input').value };""")
    browser.shoot(out, "iv-card-desktop")
    browser.size(*star_map.SIZES["phone"]); time.sleep(0.5)
    browser.shoot(out, "iv-card-phone")
    got = f"{card['species']} CP {card['cp']}"
    ok = card["species"].lower() == truth["species"].lower() and card["cp"] == truth["cp"]
    return ok, f"read {got} (truth {truth['species']} CP {truth['cp']})"


FLICK_JS = """
// Plays constructed devicemotion samples at 60 Hz as the page's own events; resolves when done.
const [samples, done] = [arguments[0], arguments[arguments.length - 1]];
let i = 0;
const timer = setInterval(() => {
  const s = samples[i++];
  window.dispatchEvent(new DeviceMotionEvent('devicemotion', { interval: 16,
    accelerationIncludingGravity: { x: s.acc[0], y: s.acc[1], z: s.acc[2] },
    rotationRate: { alpha: s.gyro[0] * 180 / Math.PI, beta: s.gyro[1] * 180 / Math.PI, gamma: s.gyro[2] * 180 / Math.PI } }));
  if (i >= samples.length) { clearInterval(timer); done(true); }
}, 1000 / 60);
"""


def play(browser, samples):
    if isinstance(browser, WebKit):
        browser.driver.set_script_timeout(120)
        return browser.driver.execute_async_script(FLICK_JS, samples)
    return browser.m.execute_async_script(FLICK_JS, script_args=[samples], script_timeout=120000, sandbox=None)


def flow_arcade_solo(browser, base, out):
    browser.size(*star_map.SIZES["phone"])
    browser.go(base + "/arcade/?mode=solo&game=basketball")
    browser.until("!document.getElementById('solo-start').classList.contains('hidden')", what="the Start button")
    browser.js("document.getElementById('solo-start').click()")
    if browser.js("return typeof DeviceMotionEvent") == "undefined":
        # WebKitGTK on a desktop has no DeviceMotionEvent at all: the page must say so (the path
        # docs/play.md promises), and nothing can be played.
        said = browser.until("document.getElementById('status').textContent", what="the page's word")
        browser.shoot(out, "arcade-solo-phone")
        return "no motion sensors" in said, f"no DeviceMotionEvent in this engine; the page says: “{said}”"
    browser.until("window.sentioArcade.sender && window.sentioArcade.sender.client.isOpen", what="the motion stream open")
    play(browser, traces.rest(2))
    browser.until("window.sentioArcade.observations > 30", what="observations from the server")
    play(browser, traces.flicks(1, peak_g=2.5, tilt_deg=25, rest_s=2.5))
    shots = browser.until("window.sentioArcade.shots.length > 0 && window.sentioArcade.shots", timeout=10, what="the throw's verdict")
    browser.shoot(out, "arcade-solo-phone")
    return shots[0]["result"] == "basket", f"{browser.js('return window.sentioArcade.observations')} observations; a 25° 2.5 g flick: {shots[0]['result']} ({shots[0]['angle']:.1f}°)"


async def python_phone(ws_base, code, samples, hold=6.0):
    import websockets
    async with websockets.connect(f"{ws_base}/api/v1/stream/motion?room={code}", ping_interval=None) as phone:
        t0 = time.time() * 1000
        for i, s in enumerate(samples):
            d = 180 / math.pi
            await phone.send(json.dumps({"samples": [{"t": i * 1000 / 60, "accelerationIncludingGravity": dict(zip("xyz", s["acc"])),
                                                      "rotationRate": {"alpha": s["gyro"][0] * d, "beta": s["gyro"][1] * d, "gamma": s["gyro"][2] * d}}],
                                         "sentAt": t0 + i * 1000 / 60}))
            await asyncio.sleep(1 / 60)
        await asyncio.sleep(hold)  # still in the room while the big screen is looked at


def flow_arcade_big_screen(browser, base, out):
    results = []
    for size in ("phone", "desktop"):
        browser.size(*star_map.SIZES[size])
        browser.go(base + "/arcade/?mode=desktop&game=plane")
        code = browser.until("document.getElementById('join-code').textContent.length === 6 && document.getElementById('join-code').textContent", what="the room code")
        browser.until("document.getElementById('join-qr').complete && document.getElementById('join-qr').naturalWidth > 0", what="the QR code")
        browser.shoot(out, f"arcade-join-{size}")
        # A phone turning slowly about x for a second (the plane moves), then still.
        samples = [{"acc": [0, traces.G * math.sin(math.radians(25) * min(i, 60) / 60), traces.G * math.cos(math.radians(25) * min(i, 60) / 60)],
                    "gyro": [math.radians(25) if i < 60 else 0, 0, 0]} for i in range(150)]
        phone = threading.Thread(target=lambda: asyncio.run(python_phone(base.replace("http", "ws", 1), code, samples)))
        phone.start()
        state = browser.until("window.sentioArcade.players.size === 1 && window.sentioArcade.observations > 100 && "
                              "[...window.sentioArcade.players.values()].map((p) => [p.name, p.plane.x])", what="the phone's plane")
        browser.shoot(out, f"arcade-plane-{size}")
        results.append((size, state[0]))
        phone.join()
    ok = all(abs(x - 0.5) > 0.05 for _, (_, x) in results)
    return ok, "; ".join(f"{size}: {name}'s plane from x 0.5 to {x:.2f}" for size, (name, x) in results)


CAMERA_JS = """
// The camera: a canvas stream of a fixture hand photo, in place of getUserMedia.
const source = arguments[0], image = new Image();
image.src = source;
navigator.mediaDevices.getUserMedia = async () => {
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = 640; canvas.height = 480;
  const ctx = canvas.getContext('2d');
  const draw = () => { ctx.fillStyle = '#777'; ctx.fillRect(0, 0, 640, 480); ctx.drawImage(image, 110, 30, 420, 420); requestAnimationFrame(draw); };
  draw();
  window.sentioCameraCanvas = canvas;
  return canvas.captureStream(15);
};
"""


def flow_gestures(browser, base, out):
    with open(os.path.join(FIXTURES, HAND), "rb") as f:
        photo = "data:image/jpeg;base64," + base64.b64encode(f.read()).decode()
    results = []
    for size in ("phone", "desktop"):
        browser.size(*star_map.SIZES[size])
        browser.go(base + "/gestures/")
        browser.until("document.getElementById('start') !== null", what="the gestures page")
        browser.js(CAMERA_JS, photo)
        browser.js("document.getElementById('start').click()")
        replies = browser.until("window.sentioGestures.replies.filter((r) => r.hand).length >= 5 && window.sentioGestures.replies.length",
                                timeout=40, what="replies with a hand")
        time.sleep(0.5)
        browser.shoot(out, f"gestures-{size}")
        results.append((size, replies))
    return True, "; ".join(f"{size}: {n} replies, a hand in ≥ 5" for size, n in results)


ADMIN = {"username": "root.admin", "password": "admin pass for engines 1"}
YALE = "faces/identity/Yale_subject04/yale_subject04_{}.png"


def submit(browser, form_id):
    browser.js("document.getElementById(arguments[0]).requestSubmit()", form_id)


def flow_attendance_admin(browser, base, out):
    """The administrator's page: sign in, add a student, enrol three photos of her face (each
    through the quality gate), create a course."""
    browser.size(*star_map.SIZES["desktop"])
    sign_in(browser, base, ADMIN)
    browser.go(base + "/attendance/admin.html")
    browser.until("!document.getElementById('work').classList.contains('hidden')", what="the administrator's page")
    user = f"{browser.name}.student"
    fill(browser, "p-username", user); fill(browser, "p-name", f"Student in {browser.name}")
    browser.js("const r = document.getElementById('p-role'); r.value = 'student'; r.dispatchEvent(new Event('change', {bubbles: true}));")
    fill(browser, "p-password", "student pass for engines 1")
    submit(browser, "new-person")
    browser.until(f"document.querySelector(\"#people tr[data-username='{user}'] button\") !== null", what="the new student's row")
    browser.js(f"document.querySelector(\"#people tr[data-username='{user}'] button\").click()")
    browser.until("!document.getElementById('enrol').classList.contains('hidden')", what="the enrolment panel")
    photos = [os.path.abspath(os.path.join(FIXTURES, YALE.format(kind))) for kind in ("glasses", "happy", "centerlight")]
    browser.upload("enrol-files", "\n".join(photos))
    browser.js("document.getElementById('enrol-go').click()")
    results = browser.until("document.querySelectorAll('#enrol-results li.ok, #enrol-results li.bad').length === 3 && "
                            "[...document.querySelectorAll('#enrol-results li')].map((li) => li.className)", timeout=120, what="three enrolment results")
    browser.shoot(out, "attendance-admin-enrol-desktop")
    fill(browser, "c-code", {"webkit": "WK101", "firefox": "FF101"}[browser.name]); fill(browser, "c-title", f"Engines in {browser.name}")
    submit(browser, "new-course")
    browser.until("!document.getElementById('course').classList.contains('hidden')", what="the new course")
    browser.size(*star_map.SIZES["phone"]); time.sleep(0.5)
    browser.shoot(out, "attendance-admin-course-phone")
    ok = results.count("ok") == 3
    return ok, f"student added; photos enrolled: {results.count('ok')} of 3; course created"


AXE_RUN = """
const done = arguments[arguments.length - 1];
axe.run(document, { resultTypes: ['violations'] }).then((r) => done(r.violations.map((v) => [v.impact, v.id, v.nodes.length, String(v.nodes[0].target)])),
                                                     (e) => done([['error', String(e), 0, '']]));
"""


def run_async(browser, script, *args):
    if isinstance(browser, WebKit):
        browser.driver.set_script_timeout(60)
        return browser.driver.execute_async_script(script, *args)
    return browser.m.execute_async_script(script, script_args=list(args), script_timeout=60000, sandbox=None)


def flow_axe(browser, base, out):
    """axe-core (the copy PyPI's axe-playwright-python carries) on every page a guest opens, at
    desktop size, in this engine: no serious or critical violation."""
    import axe_playwright_python
    from test_pages import AXE_PAGES
    with open(os.path.join(os.path.dirname(axe_playwright_python.__file__), "axe.min.js")) as f:
        source = f.read()
    browser.size(*star_map.SIZES["desktop"])
    serious, lesser = [], 0
    for path in AXE_PAGES:
        browser.go(base + path)
        time.sleep(0.7)
        browser.js(source + "; return true;")
        for impact, rule, count, target in run_async(browser, AXE_RUN):
            if impact in ("serious", "critical", "error"):
                serious.append(f"{path}: {impact} {rule} ×{count} ({target})")
            else:
                lesser += 1
    return not serious, f"{len(AXE_PAGES)} pages: {len(serious)} serious/critical, {lesser} lesser" + ("; " + "; ".join(serious[:4]) if serious else "")


FLOWS = [("iv: sign in, scan a screenshot", flow_iv), ("arcade: the phone alone (a flick)", flow_arcade_solo),
         ("arcade: big screen, a phone's plane", flow_arcade_big_screen), ("gestures: camera → hand", flow_gestures),
         ("attendance: the administrator enrols a student", flow_attendance_admin), ("axe: every page", flow_axe)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=".build/release/sentio")
    parser.add_argument("--out", default="out/engines")
    parser.add_argument("--engines", default="webkit,firefox")
    parser.add_argument("--pages", help="serve the pages from this folder")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    binary = os.path.abspath(args.bin)
    data = tempfile.mkdtemp(prefix="sentio-flows-")
    for who, role in ((PLAYER, "player"), (ADMIN, "admin")):
        subprocess.run([binary, "admin", "create", "--username", who["username"], "--role", role, "--data-dir", data],
                       input=who["password"] + "\n", text=True, check=True, capture_output=True)
    server, base = star_map.start_server(binary, data, args.pages)
    table, failures = [], 0
    try:
        for engine in args.engines.split(","):
            make = {"webkit": WebKit, "firefox": Firefox}[engine]
            for name, flow in FLOWS:
                browser = make()
                started = time.time()
                try:
                    ok, detail = flow(browser, base, args.out)
                except Exception as error:  # a flow that breaks is a failed flow, with its reason
                    ok, detail = False, f"{type(error).__name__}: {error}"
                    traceback.print_exc()
                finally:
                    browser.quit()
                failures += not ok
                table.append((f"{engine} {browser.version}", name, "pass" if ok else "FAIL", f"{time.time() - started:.0f} s", detail))
                print(" | ".join(table[-1]), flush=True)
    finally:
        server.terminate(); server.wait(15)
        shutil.rmtree(data, ignore_errors=True)
    print(f"engine flows: {len(table) - failures} of {len(table)} passed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
