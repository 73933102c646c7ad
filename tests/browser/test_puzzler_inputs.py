"""The Puzzler's inputs say what they should, measured by Sentio's own tools (no browser): each
level's real input passes the level's rule and the wrong one does not (PUZZLER_INPUTS.md).

Writes the inputs to ~/.cache/sentio/puzzler-inputs (about 7 s, 1.2 GB), then runs `sentio
faces --video`, `classify --find`, `hands`, `listen` and `motion gestures` on them (about 20 s).
"""
import os

import pytest

import puzzler_inputs as pi

NEED_S = 5.0  # the held seconds a face level asks for, with margin (the clips hold 8 s)


@pytest.fixture(scope="module")
def figures():
    out = pi.CACHE
    pi.write_all(out, os.environ.get("SENTIO_FIXTURES"))
    return dict(pi.verify(out, root=os.environ.get("SENTIO_FIXTURES")))


def held(fig, key):
    return fig["calibrated"][key + "HeldMax"] if fig.get("calibrated") else 0.0


def test_face_rules_agree_with_the_cli(figures):
    for name, fig in figures.items():
        if name.startswith("face-"):
            agree, total = map(int, fig["agreement"].split("/"))
            assert agree == total, (name, fig)


@pytest.mark.parametrize("clip,gesture", [("face-eyes-closed", "eyesClosed"), ("face-mouth-open", "mouthOpen"), ("face-smile", "smiling")])
def test_face_positives_hold_the_gesture(figures, clip, gesture):
    fig = figures[clip]
    assert fig["faces"] == {"1": 150}, fig
    assert held(fig, gesture) >= NEED_S, fig
    others = {"eyesClosed", "mouthOpen", "smiling"} - {gesture}
    assert all(held(fig, g) == 0 for g in others), fig  # calibrated: no other level solved by it


def test_face_negatives(figures):
    for g in ("eyesClosed", "mouthOpen", "smiling"):
        assert held(figures["face-neutral"], g) == 0
    assert held(figures["face-eyes-short"], "eyesClosed") < NEED_S
    assert figures["face-dark-eyes-closed"]["faces"] == {"0": 150}
    # The video tracker follows one face (FaceSession maxFaces 1); the still detector sees both.
    assert figures["face-two-eyes-closed"]["stillFaces"] == 2


def test_nose_follows_the_path(figures):
    fig = figures["face-nose"]
    assert fig["noseErrorPx"]["frames"] == fig["faces"]["1"] and fig["noseErrorPx"]["max"] < 3, fig


def test_colours_and_light(figures):
    for f, hexc in zip(figures["colour-cards"], pi.CARDS.values()):
        assert all(abs(a - b) < 0.6 for a, b in zip(f["meanRGB"], pi.hex_rgb(hexc))), (f, hexc)
    lit, dimmed, dark = figures["light-dark"]
    assert lit["L*"] > 40 and dimmed["L*"] < 20 and dark["L*"] < 20
    assert figures["light-bright"][0]["L*"] > 50


def test_fruit_and_hands(figures):
    banana, orange = figures["fruit-banana-orange"]
    assert banana["banana"][1] and not banana["orange"][1]
    assert orange["orange"][1] and not orange["banana"][1]
    apple, = figures["fruit-apple"]
    assert not apple["banana"][1] and not apple["orange"][1]
    assert figures["hand-victory"][0]["hands"] == ["victory"]
    assert figures["hand-thumbs-up"][0]["hands"] == ["thumbsUp"]
    assert figures["hand-pointing"][0]["hands"] == ["pointing"]


def test_sounds(figures):
    assert figures["sound-loud"]["dbfsMedian"] > -20 and figures["sound-loud"]["clipped"] == 0
    assert figures["sound-quiet"]["dbfsMax"] < -60
    assert [h["phrase"] for h in figures["speech-black-hole"]["hits"]] == ["black hole"]
    assert [h["phrase"] for h in figures["speech-black-hole-slt"]["hits"]] == ["black hole"]
    assert figures["speech-house"]["hits"] == []


def test_motion(figures):
    assert [(g, a) for g, a, _ in figures["motion-full-turns"]] == [("full_turn", "roll"), ("full_turn", "yaw"), ("full_turn", "pitch")]
    assert figures["motion-three-quarter-turns"] == []


def test_sos_and_drawings():
    s = pi.sos_inputs()
    assert ["." if p["ms"] < 300 else "-" for p in s["sos"]] == list("...---...")
    assert all(["." if p["ms"] < 300 else "-" for p in s[k]] != list("...---...") for k in s if k != "sos")
    d = pi.drawings(os.environ.get("SENTIO_FIXTURES"))
    for k in ("apple", "circle", "wrong", "hard_negatives"):
        for drawing in d[k]:
            pts = [p for stroke in drawing["strokes"] for p in stroke]
            assert pts and all(0 <= x <= 1 and 0 <= y <= 1 for x, y in pts)
