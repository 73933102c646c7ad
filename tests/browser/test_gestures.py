"""The gestures page in Chromium with a fake camera playing a clip of fixture hand photos
(hand_clip.py: open hand, pinch, two straight fingers held together moving across, a thumbs-up
whose curled fingertips touch moving across, open hands between), the server tracking the hand.
Expected values: which segment each frame came from (the clip's marker), and for the pen the
fingertips' midpoint the server found in the same frame, mirrored as the page shows it.
"""
import os, tempfile

import pytest

from conftest import FIXTURES, SHOTS, SIZES, shoot
import hand_clip


@pytest.fixture(scope="module")
def hand_browser(browser):
    """A second Chromium (launch flags are per browser) from the session's Playwright, its fake
    camera playing the hand clip."""
    y4m = hand_clip.build(FIXTURES, tempfile.mkdtemp(prefix="sentio-hands-"))
    hands = browser.browser_type.launch(executable_path="/usr/bin/chromium", headless=True, args=[
        "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
        f"--use-file-for-fake-video-capture={y4m}", "--no-sandbox"])
    yield hands
    hands.close()


def test_gestures_heart_and_pen(hand_browser, server):
    context = hand_browser.new_context(bypass_csp=True, viewport=SIZES["desktop"])
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server + "/gestures/")
    page.get_by_role("button", name="Start the camera").click()
    # Two passes of the 11 s clip.
    page.wait_for_function("window.sentioGestures.replies.length > 40", timeout=60000)
    page.wait_for_timeout(22000)
    replies = page.evaluate("window.sentioGestures.replies")
    shoot(page, "gestures-desktop")
    by_kind = {"open": [], "pinch": [], "pen": [], "curled": []}
    for r in replies:
        kind, index = hand_clip.marker_kind(r["marker"])
        if kind:
            by_kind[kind].append((index, r))
    hearts = {k: sum(1 for _, r in v if r["heart"]) for k, v in by_kind.items()}
    counts = {k: len(v) for k, v in by_kind.items()}
    # The pen: every point written while the pen frames played is where the fingers were (mirrored
    # frames: the page's strokes are in the camera's coordinates, so compare there), within the
    # smoothing's lag: at most 3 frames' movement (8 px each, 640 wide) plus 1% of the frame.
    pen_frames = [(i, r) for i, r in by_kind["pen"] if r["pen"] and r["lastPoint"] and r["fingers"]]
    errors_px = [abs(r["lastPoint"][0] - r["fingers"][0]) * 640 for _, r in pen_frames]
    xs = [r["lastPoint"][0] for _, r in pen_frames]
    curled_pen = sum(1 for _, r in by_kind["curled"] if r["pen"])
    print(f"\ngestures: replies {counts}, hearts {hearts}, pen down on {len(pen_frames)} of {counts['pen']} pen frames "
          f"and {curled_pen} of {counts['curled']} curled ones, "
          f"pen point within {max(errors_px or [0]):.1f} px of the fingers (x), strokes x {min(xs or [0]):.2f}–{max(xs or [0]):.2f}")
    assert all(n >= 10 for n in counts.values()), counts
    assert hearts["pinch"] > 0, "the heart appears on pinch frames"
    assert hearts["open"] == 0, "and never on the open hand"
    # The curled frames are a thumbs-up whose curled fingertips touch. Entering from the frame's
    # edge, the landmark model reads the cut-off hand as a fist for a few frames, its thumb as near
    # the index tip as in a pinch; a curled index starts no pinch (IndexReach), so no heart
    # (before that rule: 2–10 of ~200). Nor does the pen go down on its curled fingers (issue #41;
    # before: down on 186 of 211).
    assert hearts["curled"] == 0 and hearts["pen"] == 0, "and never on the curled or pen frames"
    assert curled_pen == 0, "no pen on curled fingers"
    assert len(pen_frames) >= counts["pen"] // 2
    assert max(errors_px) <= 3 * hand_clip.PEN_STEP + 6.4
    assert max(xs) - min(xs) > 0.3, "the stroke follows the hand across the frame"
    assert not errors, errors
    context.close()


@pytest.mark.parametrize("size", SIZES)
def test_gestures_page(hand_browser, server, size):
    context = hand_browser.new_context(bypass_csp=True, viewport=SIZES[size])
    page = context.new_page()
    page.goto(server + "/gestures/")
    page.get_by_role("button", name="Start the camera").click()
    # Wait until a stroke of some length is written (the pen frames), then clear it from the button.
    page.wait_for_function("window.sentioGestures.replies.some((r) => r.points > 10)", timeout=60000)
    page.get_by_role("button", name="Clear").click()
    n = page.evaluate("window.sentioGestures.commandAt")
    page.wait_for_function(f"window.sentioGestures.replies.length > {n + 3}", timeout=10000)
    before = page.evaluate(f"window.sentioGestures.replies[{n - 1}].points")
    # The reply to the frame in flight when Clear was pressed may precede it; the next one follows it.
    after = page.evaluate(f"window.sentioGestures.replies[{n + 1}].points")
    assert after <= 3 and after < before, f"the board was cleared ({before} points before, {after} after; a pen still down starts anew)"
    page.get_by_role("button", name="Undo stroke").click()
    # The whole camera view shows without scrolling (issue #41: at 1280×800 it was cut off at the
    # bottom), and the digit's answer says whether it is sure.
    stage = page.locator("#stage").bounding_box()
    print(f"\ngestures {size}: stage x {stage['x']:.0f} y {stage['y']:.0f} {stage['width']:.0f}×{stage['height']:.0f} in {SIZES[size]}")
    assert stage["y"] + stage["height"] <= SIZES[size]["height"], stage
    digits = page.evaluate("window.sentioGestures.replies.filter((r) => r.digit !== null).map((r) => r.sure)")
    assert all(sure in (True, False) for sure in digits), digits
    shoot(page, f"gestures-{size}")
    page.screenshot(path=str(SHOTS / f"gestures-{size}-window.png"))
    context.close()
