"""The motion arcade in Chromium: a desktop page that opened an arcade room, and a phone page
whose motion sensors are driven through the DevTools protocol (see ../../docs/play.md).

Expected values come from outside the page: the cube's attitude from `sentio motion fuse` run
on the samples the phone page sent (the same fusion as the server's, by the command line); the
plane's path from the original equations recomputed here; the number of throws from the
constructed flicks (motion_traces.flicks, Play's ConstructedMotion recipe).
"""
import math, os, subprocess, tempfile, time

import pytest

from conftest import FIXTURES, SIZES, shoot
import motion_traces as traces

SENSORS = ("accelerometer", "linear-acceleration", "gyroscope", "relative-orientation")
BROAD = FIXTURES / "imu" / "broad" / "02_undisturbed_slow_rotation_B.csv.gz"


def sensors(context, page, acc=(0, 0, 9.8), gyro=(0, 0, 0)):
    """Overrides the phone's sensors (before its page loads) and returns a setter for one sample."""
    cdp = context.new_cdp_session(page)
    for sensor in SENSORS:
        cdp.send("Emulation.setSensorOverrideEnabled", {"enabled": True, "type": sensor, "metadata": {"available": True}})
    cdp.send("Emulation.setSensorOverrideReadings", {"type": "linear-acceleration", "reading": {"xyz": {"x": 0, "y": 0, "z": 0}}})
    cdp.send("Emulation.setSensorOverrideReadings", {"type": "relative-orientation", "reading": {"quaternion": {"x": 0, "y": 0, "z": 0, "w": 1}}})

    def put(acc, gyro):
        cdp.send("Emulation.setSensorOverrideReadings", {"type": "accelerometer", "reading": {"xyz": dict(zip("xyz", acc))}})
        cdp.send("Emulation.setSensorOverrideReadings", {"type": "gyroscope", "reading": {"xyz": dict(zip("xyz", gyro))}})
    put(acc, gyro)
    return put


def play(put, samples, hz=60.0):
    """Sets the samples one after another at `hz` (Chromium fires devicemotion at 60 Hz itself)."""
    start = time.perf_counter()
    for i, s in enumerate(samples):
        put(s["acc"], s["gyro"])
        wait = start + (i + 1) / hz - time.perf_counter()
        if wait > 0:
            time.sleep(wait)


def open_pair(browser, server, game):
    desktop = browser.new_context(bypass_csp=True, viewport=SIZES["desktop"])
    screen = desktop.new_page()
    errors = []
    screen.on("pageerror", lambda e: errors.append(str(e)))
    screen.goto(server + f"/arcade/?mode=desktop&game={game}")
    screen.wait_for_function("document.getElementById('code').textContent.length === 6")
    join = screen.locator("#join").get_attribute("href")
    assert "/arcade/?room=" in join
    return desktop, screen, "/arcade/?room=" + join.split("room=")[1], errors


def join_phone(browser, server, path, **reading):
    phone = browser.new_context(bypass_csp=True, viewport=SIZES["phone"])
    handset = phone.new_page()
    put = sensors(phone, handset, **reading)
    handset.goto(server + path)
    handset.get_by_role("button", name="Start the motion sensors").click()
    return phone, handset, put


def test_arcade_broad_trial_cube_and_plane(browser, server):
    if not BROAD.exists():
        raise RuntimeError(f"missing fixture {BROAD} (set SENTIO_FIXTURES)")
    desktop, screen, path, errors = open_pair(browser, server, "cube")
    phone, handset, put = join_phone(browser, server, path)
    screen.wait_for_function("window.sentioArcade.observations > 5", timeout=20000)
    segment = traces.broad_segment(BROAD, 40.0, 12.0)
    play(put, segment)
    # The phone stops (its stream closes): the desktop pauses, and stops extrapolating.
    handset.evaluate("window.sentioArcade.sender.stop()")
    sent = handset.evaluate("window.sentioArcade.sender.log")
    phone.close()
    screen.wait_for_function("window.sentioArcade.paused === true", timeout=5000)
    shoot(screen, "arcade-cube-desktop")
    page = screen.evaluate("""() => { const s = window.sentioArcade; return {
        reference: s.reference, referenceTime: s.referenceTime, shown: s.cube.shown(), mode: s.cube.mode,
        last: s.last, planeLog: s.planeLog, input: s.input, observations: s.observations, frameLatency: s.frameLatency }; }""")
    out = tempfile.mkdtemp(prefix="sentio-arcade-")
    trace, fused = os.path.join(out, "sent.csv"), os.path.join(out, "fused.csv")
    traces.write_trace(sent, trace)
    subprocess.run([os.environ.get("SENTIO_BIN", ".build/release/sentio"), "motion", "fuse", trace, "--mode", "6d", "--out", fused],
                   check=True, capture_output=True)
    rows = {round(t, 6): q for t, q in traces.read_fused(fused)}
    assert page["input"]["missing"] == 0 and page["input"]["out_of_order"] == 0, page["input"]
    reference = rows[round(page["referenceTime"], 6)]
    # The final attitude on the page (the cube as drawn) against the command line's.
    expected = traces.relative(rows[round(page["last"]["time"], 6)], reference)
    cube_error = traces.angle_deg(expected, page["shown"])
    # Every attitude the page received, as the page's angles for the plane (pitch, roll) show them.
    worst_angle, worst_path = 0.0, 0.0
    x = y = vx = vy = None
    for step in page["planeLog"]:
        q = rows.get(round(step["time"], 6))
        if q is None:
            continue
        pitch, roll = traces.euler(traces.relative(q, reference))
        worst_angle = max(worst_angle, math.degrees(abs(pitch - step["pitch"])), math.degrees(abs(roll - step["roll"])))
    # The plane's path from the original equations on the page's angles: v = v·drag + angle·factor.
    x, y, vx, vy = 0.5, 0.7, 0.0, 0.0
    for step in page["planeLog"]:
        vx = vx * step["drag"] + step["pitch"] * step["factor"]; vy = vy * step["drag"] + step["roll"] * step["factor"]
        x += vx; y += vy
        if not 0.05 <= x <= 0.95: x = min(0.95, max(0.05, x)); vx = 0
        if not 0.05 <= y <= 0.95: y = min(0.95, max(0.05, y)); vy = 0
        worst_path = max(worst_path, abs(x - step["x"]), abs(y - step["y"]))
    print(f"\narcade: {len(sent)} samples sent ({page['input']['gaps']} gaps closed), {page['observations']} observations, cube ({page['mode']}) {cube_error:.3f}° from "
          f"`sentio motion fuse`; plane angles within {worst_angle:.3f}°, path within {worst_path:.2e}")
    frames = sorted(page["frameLatency"])
    print(f"arcade: sample → desktop frame (one pair, the page's own figure) median {frames[len(frames) // 2]:.1f} ms, "
          f"p95 {frames[int(0.95 * len(frames))]:.1f} ms over the last {len(frames)} frames")
    assert len(page["planeLog"]) > 0.9 * len(sent)
    assert cube_error < 1.0
    assert worst_angle < 1.0
    assert worst_path < 1e-9
    assert not errors, errors
    desktop.close()


def test_arcade_flicks_throw(browser, server):
    desktop, screen, path, errors = open_pair(browser, server, "basketball")
    phone, handset, put = join_phone(browser, server, path, acc=(0, 0, traces.G))
    screen.wait_for_function("window.sentioArcade.observations > 5", timeout=20000)
    play(put, traces.rest(5))
    at_rest = screen.evaluate("window.sentioArcade.throwsSeen")
    play(put, traces.flicks(5))
    screen.wait_for_timeout(500)
    thrown = screen.evaluate("window.sentioArcade.throwsSeen") - at_rest
    shoot(screen, "arcade-basketball-desktop")
    print(f"\narcade: {thrown} throws for 5 constructed flicks, {at_rest} in 5 s at rest")
    assert at_rest == 0
    assert thrown == 5
    assert not errors, errors
    phone.close(); desktop.close()


def test_arcade_bad_input_stall_and_second_phone(browser, server):
    desktop, screen, path, errors = open_pair(browser, server, "plane")
    phone, handset, put = join_phone(browser, server, path)
    screen.wait_for_function("window.sentioArcade.observations > 10", timeout=20000)
    # A sample with NaN (JSON null) and one far ahead in time, sent as a broken browser would.
    handset.evaluate("""() => { const c = window.sentioArcade.sender.client, t = performance.now();
        c.send({samples: [{t, accelerationIncludingGravity: {x: NaN, y: 0, z: 9.8}, rotationRate: {alpha: 0, beta: 0, gamma: 0}}]});
        c.send({samples: [{t: t + 60000, accelerationIncludingGravity: {x: 0, y: 0, z: 9.8}, rotationRate: {alpha: 0, beta: 0, gamma: 0}}]}); }""")
    screen.wait_for_function("window.sentioArcade.input.gaps >= 1", timeout=5000)
    # The phone's own re-centre button reaches the big screen.
    handset.get_by_role("button", name="Re-centre (hold the phone as you like, then tap)").click()
    screen.wait_for_function("window.sentioArcade.log.includes('Re-centred.')", timeout=5000)
    # A second phone joins: shown, ignored while the first plays.
    phone2, handset2, _ = join_phone(browser, server, path)
    screen.wait_for_function("window.sentioArcade.log.some((l) => l.includes('second phone'))", timeout=10000)
    followed = screen.evaluate("window.sentioArcade.followed")
    # The first phone goes offline: the game pauses; when it leaves, the second takes over.
    phone.set_offline(True)
    screen.wait_for_function("window.sentioArcade.paused === true", timeout=5000)
    shoot(screen, "arcade-paused-desktop")
    phone.close()
    screen.wait_for_function(f"window.sentioArcade.followed && window.sentioArcade.followed !== '{followed}' && !window.sentioArcade.paused", timeout=15000)
    assert screen.evaluate("window.sentioArcade.stalls") >= 1
    assert not errors, errors
    phone2.close(); desktop.close()


@pytest.mark.parametrize("game", ["plane", "basketball", "cube"])
def test_arcade_phone_alone(browser, server, game):
    phone = browser.new_context(bypass_csp=True, viewport=SIZES["phone"])
    page = phone.new_page()
    put = sensors(phone, page, gyro=(0.2, 0.1, 0))
    page.goto(server + f"/arcade/?mode=solo&game={game}")
    page.get_by_role("button", name="Start the motion sensors").click()
    page.wait_for_function("window.sentioArcade.observations > 30", timeout=20000)
    shoot(page, f"arcade-{game}-phone")
    phone.close()


def test_arcade_motion_refused(browser, server):
    phone = browser.new_context(bypass_csp=True, viewport=SIZES["phone"])
    page = phone.new_page()
    page.add_init_script("DeviceMotionEvent.requestPermission = async () => 'denied';")
    page.goto(server + "/arcade/?mode=solo")
    page.get_by_role("button", name="Start the motion sensors").click()
    page.wait_for_function("document.getElementById('status').textContent.includes('refused')", timeout=5000)
    shoot(page, "arcade-refused-phone")
    phone.close()


@pytest.mark.parametrize("size", SIZES)
def test_arcade_choose(browser, server, size):
    context = browser.new_context(viewport=SIZES[size])
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(server + "/arcade/")
    page.get_by_role("button", name="Play on this screen, phone as controller").wait_for()
    shoot(page, f"arcade-choose-{size}")
    assert not errors, errors
    context.close()


def test_arcade_basketball_physics(browser, server):
    """The basketball's flight against the original constants worked by hand: a flick (ax, ay) =
    (0.5, 2.0) g with the 0.1 s push leaves at (80·0.5·0.1, 60·2·0.1) = (4, 12) m/s from (1, 1.3);
    under gravity (0, −20), 0.3 s later it is at (2.2, 1.3 + 3.6 − 0.9) = (2.2, 4.0). Then a scan
    of flicks: some score, each scoring flight passes down through the hoop, and a ball thrown
    above the rim at the board comes back off it."""
    context = browser.new_context(bypass_csp=True, viewport=SIZES["desktop"])
    page = context.new_page()
    page.goto(server + "/arcade/")
    result = page.evaluate("""async () => {
        const { Basketball } = await import('/arcade/games.js');
        const b = new Basketball();
        b.throwBall(0.5, 2.0);
        for (let i = 0; i < 30; i++) b.step(0.01);
        const at = [b.x, b.y];
        let scoring = 0, tried = 0, throughHoop = true;
        for (let ax = 0.2; ax <= 1.6; ax += 0.05) for (let ay = 1.2; ay <= 3.0; ay += 0.05) {
            const s = new Basketball(); s.throwBall(ax, ay); tried++;
            let prev = [s.x, s.y];
            for (let i = 0; i < 400 && s.flying; i++) {
                const wasScored = s.scored; s.step(0.01);
                if (!wasScored && s.scored) {
                    // Scored on this step: it came down across the rim's height between its edges.
                    throughHoop = throughHoop && prev[1] > 3.05 && s.y <= 3.05 && s.x > 3.9 && s.x < 4.36;
                }
                prev = [s.x, s.y];
            }
            if (s.scored) scoring++;
        }
        const board = new Basketball(); board.throwBall(1.0, 1.7);  // (8, 10.2) m/s: reaches x 4.5 at 3.85 m, above the rim, on the board
        let maxX = 0, bounced = false;
        for (let i = 0; i < 300 && board.flying; i++) { board.step(0.01); maxX = Math.max(maxX, board.x); if (board.vx < 0) bounced = true; }
        return { at, scoring, tried, throughHoop, maxX, bounced };
    }""")
    print(f"\nbasketball: at 0.3 s {result['at']}, {result['scoring']} of {result['tried']} flicks score; board bounce {result['bounced']} (max x {result['maxX']:.2f})")
    assert abs(result["at"][0] - 2.2) < 1e-9 and abs(result["at"][1] - 4.0) < 0.02  # explicit Euler steps of 4 ms: O(h) in y
    assert result["scoring"] > 0 and result["throughHoop"]
    assert result["bounced"] and result["maxX"] < 4.5
    context.close()
