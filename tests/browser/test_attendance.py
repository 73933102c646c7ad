"""The attendance app end to end in Chromium, one browser per fake camera (issue 22).

The administrator (made by `sentio admin create`) signs in, adds a professor, creates a course,
assigns the professor, imports six students from CSV (their first passwords shown once) and
enrols everyone's face from fixture photos (one photo with eyes closed is refused, one student's
photos are kept with consent). The professor signs in and passes the face check live (a clip of
another photo of her face acting the liveness challenge), adds and opens a lecture, and turns a
second browser (the tablet) into the lecture's kiosk. At the kiosk (a device, not her session: a
browser per student with the kiosk's cookie and that student's clip) an impostor (another Yale
subject typing a student's name) and a photo attack (a still clip of an enrolled student) are
refused. A student left alone with the tablet, holding a photo of the professor, can open no
professor page or API route and cannot leave the kiosk, not even with her password; a photo of
the professor does not pass her own session's face check either; the professor leaves the kiosk
with her password and her face. Five
students check in (face, then the fixed liveness challenge blink → open mouth, then the face
again), four picking their name and one just looking (1:N); the sixth checks in on their own
phone with the room's code. The professor sees the live roll, enters a headcount, confirms with her face, changes
one record (face again), exports the CSV and reads the audit trail. A student signs in and sees
the record and the percentage. Role rules in the browser: a student is turned away from the
administrator's and the professor's pages and the API refuses them; the hand-over without the
administrator's face fails, and with her password and face it makes the professor the administrator.

Clips are made in a temporary folder from the fixtures (never copied into the repository): Yale
subjects' neutral photo (4 s), then "sleepy" (eyes closed, 0.3 s), neutral (0.4 s), "surprised"
(mouth open, 0.8 s), neutral, at 10 frames a second, looping. Where the loop stands when a check-in starts is
chance: a check-in whose neutral baseline lands on the eyes-closed frames fails as it would for
a person, so a genuine student gets a second try and the test reports how many were needed.
"""
import csv, io, json, os, pathlib, re, subprocess, tempfile, time

import pytest

from conftest import FIXTURES, SIZES, shoot

IDENTITY = FIXTURES / "faces" / "identity"
CROP = "scale=640:480:force_original_aspect_ratio=increase,crop=640:480"
ADMIN = {"username": "registrar", "password": "registrar pass 2026"}
# Every face proof is live (issue 37): the professor and the administrator are Yale subjects whose
# clips act the challenge out, each with the neutral photo whose eyes-closed and mouth-open
# photos pass the judge's thresholds on the tracked mesh (Tests/SentioServerTests/LiveFace.swift).
PROFESSOR = {"username": "m.kos", "name": "Marta Kos", "password": "professor pass 2026",
             "subject": "01", "enrol": ["normal", "sad", "glasses"], "neutral": "noglasses"}
ADMIN_FACE = {"subject": "02", "enrol": ["noglasses", "sad", "happy"], "neutral": "glasses"}
# Yale subjects whose eyes-closed and mouth-open photos move the face signals past the judge's
# relative thresholds (measured: EAR under 75% of the neutral one, MAR 0.25 over it).
STUDENTS = [("10", "ana.horvat", "Ana Horvat"), ("04", "boris.kralj", "Boris Kralj"), ("13", "cvita.novak", "Cvita Novak"),
            ("11", "dino.maric", "Dino Marić"), ("08", "ema.babic", "Ema Babić"), ("14", "filip.juric", "Filip Jurić")]
KIOSK = STUDENTS[:5]     # check in at the kiosk
JUST_LOOKS = "dino.maric"  # at the kiosk without picking a name: identified among the course (1:N)
PHONE = STUDENTS[5]      # checks in on their own phone with the room's code
IMPOSTOR = "05"          # not enrolled; picks Cvita's name
IMPOSTOR_CLAIMS = "cvita.novak"
PHOTO_ATTACK = "04"      # a still of Boris (enrolled), picking his name
STUDENT_SIGNING_IN = "ana.horvat"
EDITED = ("ema.babic", "excused")
REMARK = "Doctor's note"


def yale(subject, kind):
    return IDENTITY / f"Yale_subject{subject}" / f"yale_subject{subject}_{kind}.png"


def neutral(subject):
    return yale(subject, "normal") if yale(subject, "normal").exists() else yale(subject, "noglasses")


def enrolment_photos(subject):
    """Other photos of the subject than the clip's neutral one (check-in is not enrolment)."""
    kinds = (["noglasses"] if yale(subject, "normal").exists() else []) + ["glasses", "happy", "centerlight"]
    return [yale(subject, k) for k in kinds if yale(subject, k).exists()]


def i420(photo, folder):
    raw = folder / (photo.stem + ".yuv")
    if not raw.exists():
        subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-i", str(photo), "-vf", CROP, "-pix_fmt", "yuv420p", "-f", "rawvideo",
                        "-frames:v", "1", str(raw)], check=True)
    return raw.read_bytes()


def clip(name, sequence, folder, fps=10):
    """A Y4M of (photo, frames) pairs, BT.601 limited range (ffmpeg's default for yuv420p)."""
    out = folder / f"{name}.y4m"
    with out.open("wb") as f:
        f.write(f"YUV4MPEG2 W640 H480 F{fps}:1 Ip A1:1 C420jpeg\n".encode())
        for photo, frames in sequence:
            data = i420(photo, folder)
            for _ in range(frames):
                f.write(b"FRAME\n" + data)
    return out


def still_y4m(name, inputs, folder):
    """A one-picture clip made by an ffmpeg filter (no face, two faces)."""
    raw = folder / f"{name}.yuv"
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", *inputs, "-pix_fmt", "yuv420p", "-f", "rawvideo", "-frames:v", "1", str(raw)], check=True)
    out = folder / f"{name}.y4m"
    out.write_bytes(b"YUV4MPEG2 W640 H480 F10:1 Ip A1:1 C420jpeg\n" + (b"FRAME\n" + raw.read_bytes()) * 10)
    return out


def live_clip(subject, folder, neutral_kind=None):
    n, s, m = yale(subject, neutral_kind) if neutral_kind else neutral(subject), yale(subject, "sleepy"), yale(subject, "surprised")
    # A blink of 0.3 s; the mouth opened 0.4 s later and held 0.8 s, as a person reading the next
    # prompt does. With a 0.2 s gap and a 0.4 s mouth the professor's confirmation once failed in
    # CI ("could not see you open your mouth in time"): at ~5 processed frames a second (a loaded
    # machine) the judge can miss the neutral frame it needs between two actions, or see one
    # open-mouth frame where it needs two (LivenessRules.mouthFrames).
    return clip(f"live-{subject}", [(n, 40), (s, 3), (n, 4), (m, 8), (n, 6)], folder)


@pytest.fixture(scope="module")
def clips():
    for path in [yale(PROFESSOR["subject"], PROFESSOR["neutral"]), yale(ADMIN_FACE["subject"], ADMIN_FACE["neutral"]),
                 *(yale(s, k) for s, *_ in STUDENTS for k in ("sleepy", "surprised"))]:
        if not path.exists():
            raise RuntimeError(f"missing fixture {path} (set SENTIO_FIXTURES)")  # never a silent skip
    folder = pathlib.Path(tempfile.mkdtemp(prefix="sentio-attendance-clips-"))
    made = {subject: live_clip(subject, folder) for subject, *_ in STUDENTS}
    made["impostor"] = live_clip(IMPOSTOR, folder)
    made["photo"] = clip("photo-attack", [(neutral(PHOTO_ATTACK), 10)], folder)
    made["no-face"] = still_y4m("no-face", ["-f", "lavfi", "-i", "color=c=0x808890:s=640x480"], folder)
    made["two-faces"] = still_y4m("two-faces", ["-i", str(neutral("05")), "-i", str(neutral("07")),
                                                "-filter_complex", "[0][1]hstack,pad=640:480:0:118:white"], folder)
    made["admin"] = live_clip(ADMIN_FACE["subject"], folder, ADMIN_FACE["neutral"])
    made["professor"] = live_clip(PROFESSOR["subject"], folder, PROFESSOR["neutral"])
    made["professor-photo"] = clip("professor-photo", [(yale(PROFESSOR["subject"], PROFESSOR["neutral"]), 10)], folder)
    return made


@pytest.fixture(scope="module")
def att_server():
    binary = os.environ.get("SENTIO_BIN", ".build/release/sentio")
    data = tempfile.mkdtemp(prefix="sentio-browser-attendance-")
    subprocess.run([binary, "admin", "create", "--username", ADMIN["username"], "--data-dir", data],
                   input=ADMIN["password"] + "\n", text=True, check=True, capture_output=True)
    args = [binary, "serve", "--port", "0", "--json", "--data-dir", data, "--log-level", "error", "--liveness-challenge", "blink,open-mouth"]
    if os.environ.get("SENTIO_PAGES"):
        args += ["--pages", os.environ["SENTIO_PAGES"]]
    process = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    if not line:
        raise RuntimeError(f"the server did not start: {binary}")
    yield {"url": json.loads(line)["http"], "data": data}
    process.terminate()
    process.wait()


@pytest.fixture(scope="module")
def playwright(browser):
    """The session's Playwright (one sync Playwright per process): its Chromium launcher, for a
    browser per fake camera."""
    class Session:
        chromium = browser.browser_type
    return Session


def launch(playwright, y4m=None):
    args = ["--no-sandbox", "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream"]
    if y4m:
        args.append(f"--use-file-for-fake-video-capture={y4m}")
    return playwright.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=args)


def until(page, expression, timeout=30000, arg=None):
    """Polls a JavaScript expression (the pages' Content-Security-Policy refuses the string
    evaluation wait_for_function would use)."""
    deadline = time.monotonic() + timeout / 1000
    while True:
        value = page.evaluate(expression, arg)
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {expression}")
        time.sleep(0.1)


def watch(page, allowed=()):
    """Page errors, console errors and unexpected 4xx/5xx answers."""
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" and "Failed to load resource" not in m.text else None)

    def response(r):
        if r.status < 400 or (r.status == 401 and r.url.endswith("/api/v1/session")):
            return
        if any(re.search(pattern, f"{r.status} {r.request.method} {r.url}") for pattern in allowed):
            return
        errors.append(f"{r.status} {r.request.method} {r.url}")
    page.on("response", response)
    return errors


def shoot_both(page, name):
    size = page.viewport_size
    for label, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        page.evaluate("window.scrollTo(0, 0)")
        page.wait_for_timeout(200)
        shoot(page, f"attendance-{name}-{label}")
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 1, f"{name} at {label}: {overflow}px of horizontal overflow"
    page.set_viewport_size(size)


# Passwords people chose for themselves at their first sign-in, by user name.
CHOSEN = {}


def sign_in(page, url, username, password, lands):
    """Signs in from the landing page. An account whose password someone else chose (the
    administrator's form, the CSV import) is sent to the account page first and must choose its
    own (issue 34, finding 11); it does, and goes on to where it was going."""
    page.goto(url + "/attendance/")
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password", exact=True).fill(CHOSEN.get(username, password))
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(lambda u: lands in u or "/account/" in u)
    # The landing page's view loads first and sends such an account on to the account page.
    page.wait_for_load_state("networkidle")
    if "/account/" in page.url:
        page.wait_for_selector("#must-change:not(.hidden)")
        chosen = f"{password} mine"
        page.get_by_label("Current password").fill(password)
        page.get_by_label("New password", exact=True).fill(chosen)
        page.get_by_label("New password again").fill(chosen)
        page.get_by_role("button", name="Change the password").click()
        CHOSEN[username] = chosen
    page.wait_for_url(f"**{lands}*")


def api(page, method, path, body=None):
    """A same-origin fetch from the page (cookie and CSRF token as the pages send them)."""
    return page.evaluate("""async ([method, path, body]) => {
        const s = await (await fetch('/api/v1/session')).json();
        const r = await fetch(path, {method, headers: {'Content-Type': 'application/json', 'X-CSRF-Token': s.csrfToken},
                                     body: body === null ? undefined : JSON.stringify(body)});
        return {status: r.status, body: await r.text()};
    }""", [method, path, body])


def kiosk_check_in(playwright, url, cookies, y4m, name, shot=None):
    """One person at the kiosk (a browser holding the kiosk's cookie) with their own camera:
    types the first letters of `name` and taps it (None: just looks), and waits for the result
    screen. Returns (tone, title, text, seconds, steps seen)."""
    browser = launch(playwright, y4m)
    try:
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        context.add_cookies(cookies)
        page = context.new_page()
        errors = watch(page)
        page.goto(f"{url}/attendance/kiosk.html")
        until(page, "document.querySelector('#placeholder').classList.contains('hidden')", 20000)
        until(page, "document.querySelector('main').dataset.screen === 'pick'", 20000)
        if name:
            page.get_by_label("Or type your name").fill(name.split()[0][:3])
            page.wait_for_selector(".kiosk-name")
        page.wait_for_timeout(400)
        if shot:
            shoot_both(page, f"{shot}-list")
        started = time.monotonic()
        if name:
            page.get_by_role("button", name=re.compile(re.escape(name))).click()
        else:
            page.get_by_role("button", name="Just look at the camera").click()
        prompts, shots = set(), set()
        while page.evaluate("document.querySelector('main').dataset.screen") == "checking":
            prompt = page.locator("#prompt").inner_text()
            prompts.add(prompt)
            if shot and prompt in ("Blink", "Open your mouth") and prompt not in shots:
                shots.add(prompt)
                shoot(page, f"attendance-{shot}-{prompt.lower().replace(' ', '-')}-desktop")
            if time.monotonic() - started > 60:
                raise AssertionError(f"check-in of {name} did not end: {prompts}")
            page.wait_for_timeout(60)
        seconds = time.monotonic() - started
        tone = page.locator("#result").get_attribute("data-tone")
        title, text = page.locator("#result-title").inner_text(), page.locator("#result-text").inner_text()
        if shot:
            shoot_both(page, f"{shot}-result")
        assert not errors, errors
        return tone, title, text, seconds, prompts
    finally:
        browser.close()


def kiosk_problem(playwright, url, cookies, y4m, shot):
    """A frame the kiosk cannot use: it says why on the camera and records nothing; Cancel."""
    browser = launch(playwright, y4m)
    try:
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        context.add_cookies(cookies)
        page = context.new_page()
        errors = watch(page)
        page.goto(f"{url}/attendance/kiosk.html")
        until(page, "document.querySelector('main').dataset.screen === 'pick'", 20000)
        until(page, "document.querySelector('#placeholder').classList.contains('hidden')", 20000)
        page.get_by_role("button", name="Just look at the camera").click()
        page.wait_for_selector("#problem:not(.hidden)", timeout=20000)
        text = page.locator("#problem").inner_text()
        shoot_both(page, shot)
        page.get_by_role("button", name="Cancel").click()
        until(page, "document.querySelector('main').dataset.screen === 'pick'", 5000)
        assert not errors, errors
        return text
    finally:
        browser.close()


def kiosk_abuse(playwright, url, cookies, photo_clip, lecture):
    """Issue 37's attack, step by step, in a browser that holds the kiosk's cookie and whose
    camera shows a still photo of the professor: no professor page, no professor API route,
    no leaving the kiosk with the photo (not even with her password); then the photo against
    the professor's own session face check. Returns what each step showed."""
    seen = {}
    browser = launch(playwright, photo_clip)
    try:
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        context.add_cookies(cookies)
        page = context.new_page()
        errors = watch(page, allowed=[r"^403 POST .*/kiosk/leave$"])
        page.goto(f"{url}/attendance/kiosk.html")
        until(page, "document.querySelector('#placeholder').classList.contains('hidden')", 20000)
        # The kiosk offers no link to any professor page.
        links = page.evaluate("[...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href'))")
        assert not [l for l in links if "professor" in l or "lecture" in l], links
        # Leaving with a guessed password and then with her real one, the photo held up: refused both times.
        for password in ("a guess 2026", CHOSEN.get(PROFESSOR["username"], PROFESSOR["password"])):
            page.get_by_role("button", name="Leave the kiosk").click()
            page.get_by_label("Password").fill(password)
            page.get_by_role("button", name="Check my face and leave").click()
            page.wait_for_selector("#result:not(.hidden)", timeout=90000)  # three tries of the challenge
            seen.setdefault("leave", []).append(page.locator("#result-text").inner_text())
            assert page.locator("#result").get_attribute("data-tone") == "bad"
            assert page.locator("#result-title").inner_text() == "Still a kiosk"
            if len(seen["leave"]) == 2:
                shoot_both(page, "kiosk-abuse-leave")
            page.get_by_role("button", name=re.compile("Back to check-in")).click()
        assert all("could not see you blink" in t for t in seen["leave"]), seen
        # The professor's API: every route answers 401 to the kiosk (it holds no session).
        statuses = page.evaluate("""async (lecture) => {
            const out = {};
            for (const [method, path, body] of [["GET", `/api/v1/attendance/lectures/${lecture}`], ["GET", "/api/v1/attendance/courses"],
                                                ["PUT", `/api/v1/attendance/lectures/${lecture}/records/x`, {status: "present", proof: "x"}],
                                                ["POST", `/api/v1/attendance/lectures/${lecture}/confirm`, {proof: "x"}]]) {
                const r = await fetch(path, {method, headers: {"Content-Type": "application/json"}, body: body ? JSON.stringify(body) : undefined});
                out[`${method} ${path}`] = r.status;
            }
            return out;
        }""", lecture)
        seen["api"] = statuses
        assert set(statuses.values()) == {401}, statuses
        errors.clear()  # those 401s were the test's own requests
        # The professor's pages: each asks for a sign-in.
        for path in ("/attendance/professor.html", f"/attendance/lecture.html?lecture={lecture}", "/attendance/admin.html"):
            page.goto(url + path)
            page.wait_for_selector("#gate:not(.hidden)")
            assert "Sign in first" in page.locator("#gate").inner_text(), path
        shoot_both(page, "kiosk-abuse-gate")
        assert not errors, errors
        # The photo against the professor's own session (her password known): no face check.
        page.context.clear_cookies()
        sign_in(page, url, PROFESSOR["username"], PROFESSOR["password"], "/attendance/professor.html")
        until(page, "document.querySelector('#face-check .status')?.classList.contains('bad')", 90000)
        seen["session_face_check"] = page.locator("#face-check .status").inner_text()
        assert "could not see you blink" in seen["session_face_check"], seen
        assert page.locator("#work").evaluate("e => e.classList.contains('hidden')")
        assert page.evaluate("fetch('/api/v1/attendance/courses').then(r => r.status)") == 403
        return seen
    finally:
        browser.close()


def test_attendance_end_to_end(playwright, att_server, clips, tmp_path):
    url = att_server["url"]
    report = {}
    plain = launch(playwright, clips["photo"])  # the administrator's and students' browser (its camera is never asked to prove anyone)
    print(f"\nChromium {plain.version}")

    # ── The administrator ──────────────────────────────────────────────────────────────────────
    admin_context = plain.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
    admin = admin_context.new_page()
    admin_errors = watch(admin, allowed=[r"^(403|422) POST .*/faces\?"])
    admin.goto(url + "/attendance/")
    shoot_both(admin, "landing-signed-out")
    sign_in(admin, url, ADMIN["username"], ADMIN["password"], "/attendance/admin.html")
    admin.wait_for_selector("#work:not(.hidden)")

    admin.get_by_label("User name").fill(PROFESSOR["username"])
    admin.get_by_label("Full name").fill(PROFESSOR["name"])
    admin.locator("#p-role").select_option("professor")
    admin.get_by_label("First password").fill(PROFESSOR["password"])
    admin.get_by_role("button", name="Add", exact=True).click()
    admin.wait_for_selector(f"#people tr[data-username='{PROFESSOR['username']}']")

    year = admin.evaluate("document.querySelector('#c-year').value")
    admin.get_by_label("Code").fill("CS101")
    admin.get_by_label("Title").fill("Introduction to Programming")
    admin.get_by_role("button", name="Create the course").click()
    admin.wait_for_selector("#course:not(.hidden)")
    assert admin.locator("#course-title").inner_text() == "Introduction to Programming"
    course = admin.evaluate("document.querySelector('#courses .att-item.chosen').dataset.course")

    admin.locator("#assign").select_option(label=f"{PROFESSOR['name']} ({PROFESSOR['username']})")
    admin.get_by_role("button", name="Assign").click()
    admin.wait_for_selector(f"#course-professors li:has-text('{PROFESSOR['name']}')")

    admin.locator("#csv-box summary").click()
    admin.locator("#csv-text").fill("username,display name\n" + "\n".join(f"{u},{n}" for _, u, n in STUDENTS))
    admin.get_by_role("button", name="Import").click()
    admin.wait_for_selector("#created tbody tr")
    passwords = {row[0]: row[2] for row in admin.evaluate(
        "[...document.querySelectorAll('#created tbody tr')].map(tr => [...tr.cells].map(td => td.textContent))")}
    assert sorted(passwords) == sorted(u for _, u, _ in STUDENTS)
    assert admin.locator("#student-count").inner_text() == "(6)"
    shoot_both(admin, "admin-course")

    # Faces: the professor's and each student's; one eyes-closed photo is refused at upload; Ana's
    # photos are kept (consent), the others' only as descriptors.
    def enrol(username, photos, keep=False):
        admin.locator(f"#people tr[data-username='{username}'] button").click()
        admin.wait_for_selector("#enrol:not(.hidden)")
        admin.locator("#enrol-files").set_input_files([str(p) for p in photos])
        admin.locator("#consent").set_checked(keep)
        admin.get_by_role("button", name="Enrol the photos").click()
        until(admin, f"document.querySelectorAll('#enrol-results li.ok, #enrol-results li.bad').length === {len(photos)}", 120000)
        return admin.evaluate("[...document.querySelectorAll('#enrol-results li')].map(li => [li.className, li.textContent])")

    results = enrol(PROFESSOR["username"], [yale(PROFESSOR["subject"], k) for k in PROFESSOR["enrol"]])
    assert all(c == "ok" for c, _ in results), results
    enrolled = {}
    for subject, username, _ in STUDENTS:
        photos = enrolment_photos(subject) + ([yale(subject, "sleepy")] if username == "ana.horvat" else [])
        results = enrol(username, photos, keep=username == "ana.horvat")
        enrolled[username] = sum(c == "ok" for c, _ in results)
        if username == "ana.horvat":
            refused = [t for c, t in results if c == "bad"]
            assert len(refused) == 1 and "eyes are closed" in refused[0], results
            admin.wait_for_selector("#kept-photos img")
            assert admin.locator("#kept-photos img").count() == enrolled[username]
            shoot_both(admin, "admin-enrol")
        assert enrolled[username] >= 3, results
    report["enrolled"] = enrolled
    admin.locator("#role-filter").select_option("student")
    faces = admin.evaluate("[...document.querySelectorAll('#people tbody tr')].map(tr => [tr.dataset.username, tr.cells[3].textContent])")
    assert len(faces) == 6 and all(f.endswith("faces") for _, f in faces), faces
    shoot_both(admin, "admin-people")

    # Hand-over without the administrator's face (none is enrolled) is refused, in words.
    admin.locator("#h-user").select_option(label=f"{PROFESSOR['name']} (Professor)")
    admin.locator("#h-password").fill(ADMIN["password"])
    admin.once("dialog", lambda d: d.accept())
    admin.get_by_role("button", name="Check my face and hand over").click()
    until(admin, "document.querySelector('#handover-status').classList.contains('bad')", 30000)
    report["handover_without_face"] = admin.locator("#handover-status").inner_text()
    assert "no enrolled face" in report["handover_without_face"]
    assert not admin_errors, admin_errors

    # ── The professor: password, then face ─────────────────────────────────────────────────────
    prof_browser = launch(playwright, clips["professor"])
    prof_context = prof_browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
    prof = prof_context.new_page()
    prof_errors = watch(prof)
    sign_in(prof, url, PROFESSOR["username"], PROFESSOR["password"], "/attendance/professor.html")
    prof.wait_for_selector("#face-check:not(.hidden)")
    until(prof, "/Face confirmed/.test(document.querySelector('#face-check .status')?.textContent ?? '')", 60000)
    report["professor_face_check"] = prof.locator("#face-check .status").inner_text()
    shoot(prof, "attendance-professor-facecheck-desktop")
    prof.wait_for_selector("#work:not(.hidden)")
    prof.wait_for_selector(f"#courses [data-course='{course}']")
    assert prof.locator("#year").input_value() == year
    prof.wait_for_selector("#course:not(.hidden)")
    prof.get_by_label("Title").fill("Lecture 1: Values and names")
    prof.get_by_role("button", name="Add the lecture").click()
    prof.wait_for_selector("#lectures a.att-lecture")
    shoot_both(prof, "professor-courses")
    prof.locator("#lectures a.att-lecture").first.click()
    prof.wait_for_url("**/attendance/lecture.html?lecture=*")
    lecture = prof.url.split("lecture=")[1]
    prof.get_by_role("button", name="Open for check-in").click()
    prof.wait_for_selector("#live:not(.hidden)")
    code = prof.locator("#code").inner_text()
    assert re.fullmatch(r"\d{4} \d{4}", code), code  # eight digits, shown in two groups of four
    assert prof.locator("#missing li").count() == 6

    # ── The tablet becomes the lecture's kiosk ─────────────────────────────────────────────────
    tablet_browser = launch(playwright, clips["professor"])
    tablet_context = tablet_browser.new_context(viewport={"width": 1280, "height": 800})
    tablet = tablet_context.new_page()
    tablet_errors = watch(tablet)
    sign_in(tablet, url, PROFESSOR["username"], PROFESSOR["password"], "/attendance/professor.html")
    until(tablet, "/Face confirmed/.test(document.querySelector('#face-check .status')?.textContent ?? '')", 60000)
    tablet.goto(f"{url}/attendance/lecture.html?lecture={lecture}")
    tablet.wait_for_selector("#live:not(.hidden)")
    tablet.once("dialog", lambda d: d.accept())
    tablet.get_by_role("button", name="Make this device the kiosk").click()
    tablet.wait_for_url("**/attendance/kiosk.html")
    until(tablet, "document.querySelector('main').dataset.screen === 'pick'", 20000)
    # The kiosk's two cookies, as the tablet holds them: the HttpOnly token, and the page's readable hint.
    cookies = [c for c in tablet_context.cookies() if c["name"] in ("sentio_kiosk", "sentio_kiosk_device")]
    token = [c for c in cookies if c["name"] == "sentio_kiosk"]
    assert len(cookies) == 2 and len(token) == 1 and token[0]["httpOnly"] and token[0]["path"] == "/api/v1/attendance/kiosk", tablet_context.cookies()
    assert not [c for c in tablet_context.cookies() if c["name"] == "sentio_session" and c["value"]], "the professor's session ends on the kiosk"
    assert tablet.locator(".kiosk-name").count() == 0, "the kiosk lists no names before two letters are typed"
    shoot_both(tablet, "kiosk-ready")

    # ── The kiosk ─────────────────────────────────────────────────────────────────────────────
    names = {u: n for _, u, n in STUDENTS}
    outcomes = []
    tone, title, text, seconds, prompts = kiosk_check_in(playwright, url, cookies, clips["impostor"], names[IMPOSTOR_CLAIMS], shot="kiosk-impostor")
    outcomes.append(("impostor", tone, text, round(seconds, 1)))
    assert tone == "bad" and "does not match" in text, (title, text)
    tone, title, text, seconds, prompts = kiosk_check_in(playwright, url, cookies, clips["photo"], names["boris.kralj"], shot="kiosk-photo")
    outcomes.append(("photo attack", tone, text, round(seconds, 1)))
    assert tone == "bad" and "could not see you blink" in text, (title, text)
    assert "Blink" in prompts, prompts

    # Frames the kiosk cannot use: it says which, and nothing is recorded.
    report["frame_problems"] = [kiosk_problem(playwright, url, cookies, clips["no-face"], "kiosk-no-face"),
                                kiosk_problem(playwright, url, cookies, clips["two-faces"], "kiosk-two-faces")]
    assert report["frame_problems"][0].startswith("No face in view"), report["frame_problems"]
    assert report["frame_problems"][1].startswith("More than one face in view"), report["frame_problems"]

    tries = {}
    for i, (subject, username, name) in enumerate(KIOSK):
        for attempt in (1, 2):
            tone, title, text, seconds, prompts = kiosk_check_in(playwright, url, cookies, clips[subject],
                                                                 None if username == JUST_LOOKS else name,
                                                                 shot="kiosk-student" if i == 0 and attempt == 1 else None)
            outcomes.append((username, tone, text if tone == "bad" else title, round(seconds, 1)))
            if tone == "ok":
                break
        assert tone == "ok" and title == f"Welcome, {name}", (username, title, text, outcomes)
        assert {"Blink", "Open your mouth"} <= prompts, prompts
        tries[username] = attempt
        if i == 1:  # the live roll while three are still missing
            until(prof, "document.querySelectorAll('#checked-in li').length === 2", 10000)
            assert prof.locator("#missing li").count() == 4
            shoot_both(prof, "lecture-live")
    report["kiosk"] = outcomes

    # ── A student's own phone, with the room's code ────────────────────────────────────────────
    subject, username, name = PHONE
    phone_browser = launch(playwright, clips[subject])
    phone_context = phone_browser.new_context(viewport=SIZES["phone"], is_mobile=True, has_touch=True)
    phone = phone_context.new_page()
    phone_errors = watch(phone)
    sign_in(phone, url, username, passwords[username], "/attendance/student.html")
    phone.wait_for_selector(f"#courses [data-course='{course}']")
    for attempt in (1, 2):
        phone.get_by_label("Room code").fill(code)
        started = time.monotonic()
        phone.get_by_role("button", name="Check in", exact=True).click()
        phone.wait_for_selector("#phone:not(.hidden)")
        seen = set()
        while not phone.locator("#phone").evaluate("e => e.classList.contains('hidden')"):
            prompt = phone.locator("#prompt").inner_text()
            if prompt == "Blink" and prompt not in seen:
                shoot(phone, "attendance-phone-checkin-blink-phone")
            seen.add(prompt)
            assert time.monotonic() - started < 60, seen
            phone.wait_for_timeout(60)
        outcome = phone.locator("#checkin-status").inner_text()
        outcomes.append((username + " (own phone)", "ok" if outcome.startswith("Checked in") else "bad", outcome, round(time.monotonic() - started, 1)))
        if outcome.startswith("Checked in"):
            break
    assert outcome.startswith("Checked in"), outcomes
    tries[username] = attempt
    shoot_both(phone, "phone-checked-in")
    assert not phone_errors, phone_errors
    phone_browser.close()
    report["tries"] = tries

    # ── A student left alone with the tablet, holding a photo of the professor ─────────────────
    report["kiosk_abuse"] = kiosk_abuse(playwright, url, cookies, clips["professor-photo"], lecture)

    # The professor leaves the kiosk with her password and her face: signed in there again.
    tablet.get_by_role("button", name="Leave the kiosk").click()
    tablet.get_by_label("Password").fill(CHOSEN.get(PROFESSOR["username"], PROFESSOR["password"]))
    tablet.get_by_role("button", name="Check my face and leave").click()
    tablet.wait_for_url("**/attendance/lecture.html?lecture=*", timeout=90000)
    tablet.wait_for_selector("#live:not(.hidden)")
    assert not [c for c in tablet_context.cookies() if c["name"] == "sentio_kiosk" and c["value"]]
    assert not tablet_errors, tablet_errors
    tablet_browser.close()

    # ── The professor confirms with a headcount and her face ───────────────────────────────────
    until(prof, "document.querySelectorAll('#checked-in li').length === 6", 10000)
    methods = prof.evaluate("Object.fromEntries([...document.querySelectorAll('#checked-in li')].map(li => [li.dataset.student, li.textContent]))")
    report["roll"] = sorted(methods.values())
    assert sum("kiosk, recognised" in m for m in methods.values()) == 1, methods
    assert sum("own phone" in m for m in methods.values()) == 1, methods
    shoot_both(prof, "lecture-all-in")
    assert prof.locator("#missing li").count() == 0
    prof.get_by_label("Headcount in the room").fill("7")
    prof.get_by_role("button", name="Confirm with my face").click()
    try:
        prof.wait_for_selector("#confirmed:not(.hidden)", timeout=90000)  # up to three tries of the challenge
    except Exception:
        shoot(prof, "attendance-confirm-failed-desktop")
        raise AssertionError(f"not confirmed: {prof.locator('#status').inner_text()} | {prof.locator('#confirm-face').inner_text()}")
    report["confirm"] = prof.locator("#status").inner_text()
    assert "6 present, 0 late, 0 absent" in report["confirm"] and "1 more than checked in" in report["confirm"], report["confirm"]
    statuses = prof.evaluate("Object.fromEntries([...document.querySelectorAll('#records tbody tr')].map(tr => [tr.cells[0].textContent, tr.cells[1].textContent]))")
    assert statuses == {n: "Present" for _, _, n in STUDENTS}, statuses
    # A change needs the face again.
    row = prof.locator(f"#records tbody tr:has-text('{names[EDITED[0]]}')")
    row.locator("select").select_option(EDITED[1])
    row.get_by_label(f"Remark for {names[EDITED[0]]}").fill(REMARK)  # the remark goes with the status, in the same face-confirmed change
    row.get_by_role("button", name="Change").click()
    until(prof, "/face-confirmed/.test(document.querySelector('#status').textContent)", 60000)
    assert prof.locator(f"#records tbody tr:has-text('{names[EDITED[0]]}') td").first.text_content() == "Excused"
    assert prof.locator(f"#records tbody tr:has-text('{names[EDITED[0]]}') td[data-label='Remark']").text_content() == REMARK
    prof.locator("#audit-box summary").click()
    prof.wait_for_selector("#audit tbody tr")
    # Each row: the raw action and outcome (data attributes), then the cells as shown.
    audit = prof.evaluate("[...document.querySelectorAll('#audit tbody tr')].map(tr => [tr.dataset.action, tr.dataset.outcome, ...[...tr.cells].map(td => td.textContent)])")
    report["audit"] = [(a[0], a[1]) for a in audit]
    refusals = [a[4] + ": " + a[7] for a in audit if a[0] == "checkin" and a[1] == "refused"]
    report["audit_refusals"] = refusals
    # A refused check-in names only whom the person claimed to be, never as if it were theirs.
    assert all(r.startswith("Someone claiming to be") or r.startswith("Someone not recognised") for r in refusals), refusals
    assert any(names[IMPOSTOR_CLAIMS] in r and "does not match" in r for r in refusals), refusals
    assert any(names["boris.kralj"] in r and "blink not done" in r for r in refusals), refusals
    assert len(refusals) == 2 + sum(t - 1 for t in tries.values()), refusals
    assert sum(1 for a in audit if a[0] == "checkin" and a[1] == "pending") == 6
    assert any(a[0] == "lecture.confirm" for a in audit) and any(a[0] == "record.edit" for a in audit)
    assert any(a[0] == "kiosk.leave" and a[1] == "refused" for a in audit) and any(a[0] == "kiosk.start" for a in audit)
    assert not prof.locator("#audit td.att-tech").first.is_visible(), "distances stay behind the details switch"
    prof.locator("#audit-tech").check()
    assert prof.locator("#audit td.att-tech").first.is_visible()
    shoot_both(prof, "lecture-confirmed")
    with prof.expect_download() as download:
        prof.get_by_role("button", name="Export the course's CSV").click()
    rows = list(csv.DictReader(io.StringIO(pathlib.Path(download.value.path()).read_text())))
    assert {r["username"]: r["status"] for r in rows} == {**{u: "present" for _, u, _ in STUDENTS}, EDITED[0]: EDITED[1]}
    assert {r["username"]: r["remark"] for r in rows} == {**{u: "" for _, u, _ in STUDENTS}, EDITED[0]: REMARK}
    assert not prof_errors, prof_errors

    # ── The timetable: a Monday slot across the spring change, a holiday, the lectures made once ─
    prof.goto(f"{url}/attendance/professor.html?course={course}")
    prof.wait_for_selector("#course:not(.hidden)")
    prof.locator("#timetable-box summary").click()
    prof.locator("#slot-weekday").select_option("1")
    prof.get_by_label("Weekly start").fill("10:15")
    prof.get_by_label("Minutes long").fill("90")
    prof.get_by_label("Slot name").fill("Lecture")
    prof.get_by_label("Room").fill("P1")
    prof.get_by_label("First date").fill("2027-03-15")
    prof.get_by_label("Last date").fill("2027-04-05")
    prof.get_by_label("Time zone").fill("Europe/Ljubljana")
    prof.get_by_role("button", name="Add the weekly slot").click()
    prof.wait_for_selector("#slots li.att-slot")
    prof.get_by_role("button", name="Create the lectures").click()
    until(prof, "/^Made 4 lectures; 0 already there/.test(document.querySelector('#timetable-status').textContent)", 10000)
    prof.get_by_role("button", name="Create the lectures").click()  # again: nothing new
    until(prof, "/^Made 0 lectures; 4 already there/.test(document.querySelector('#timetable-status').textContent)", 10000)
    prof.locator("#slots li.att-slot input[type=date]").fill("2027-03-22")
    prof.get_by_role("button", name="No lecture that day").click()
    prof.wait_for_selector("#slots .att-exception[data-date='2027-03-22']")
    until(prof, "document.querySelectorAll('#lectures a.att-lecture').length === 4", 10000)  # Lecture 1 and three Mondays
    made = {l["slotDate"]: l["startsAt"] for l in json.loads(api(prof, "GET", f"/api/v1/attendance/courses/{course}/lectures")["body"]) if "slotDate" in l}
    # 10:15 in Ljubljana: 09:15 UTC before 28 March 2027, 08:15 UTC after (summer time).
    assert made == {"2027-03-15": 1805102100000, "2027-03-29": 1806308100000, "2027-04-05": 1806912900000}, made
    report["timetable"] = prof.locator("#timetable-status").inner_text()
    shoot_both(prof, "professor-timetable")

    # ── The report over the year so far: the lecture held, the remark's excused student not counted ─
    prof.goto(f"{url}/attendance/report.html")
    prof.wait_for_selector("#work:not(.hidden)")
    until(prof, "document.querySelectorAll('#report tbody tr').length === 6", 15000)
    shares = prof.evaluate("Object.fromEntries([...document.querySelectorAll('#report tbody tr')].map(tr => [tr.dataset.student, tr.querySelector('.att-share').textContent]))")
    assert shares == {**{u: "100.0%" for _, u, _ in STUDENTS}, EDITED[0]: "—"}, shares
    prof.get_by_label("Flag under (%)").fill("100")
    prof.get_by_role("button", name="Show the report").click()
    until(prof, "/under 100%/.test(document.querySelector('#status').textContent)", 10000)
    assert prof.locator("#report tr.flagged").count() == 0  # 100 % is not under 100 %
    shoot_both(prof, "report")
    with prof.expect_download() as download:
        prof.get_by_role("link", name="Download CSV").click()
    rows = list(csv.DictReader(io.StringIO(pathlib.Path(download.value.path()).read_text())))
    assert {r["username"]: (r["excused"], r["percent"], r["flagged"]) for r in rows} == {
        **{u: ("0", "100.0", "no") for _, u, _ in STUDENTS}, EDITED[0]: ("1", "", "no")}, rows
    report["report_csv"] = len(rows)
    assert not prof_errors, prof_errors

    # ── A student sees their own record; role rules ─────────────────────────────────────────────
    student_context = plain.new_context(viewport={"width": 390, "height": 844})
    student = student_context.new_page()
    student_errors = watch(student, allowed=[r"^40[34] "])
    sign_in(student, url, STUDENT_SIGNING_IN, passwords[STUDENT_SIGNING_IN], "/attendance/student.html")
    student.wait_for_selector(f"#courses [data-course='{course}']")
    card = student.locator(f"#courses [data-course='{course}']")
    report["student_sees"] = card.inner_text().replace("\n", " | ")
    assert card.locator(".att-percent").inner_text() == "100%"
    assert card.locator(f"[data-lecture='{lecture}'] .badge").text_content() == "Present"
    shoot_both(student, "student")
    assert api(student, "GET", f"/api/v1/attendance/lectures/{lecture}")["status"] == 403
    assert api(student, "GET", f"/api/v1/attendance/courses/{course}/attendance.csv")["status"] == 403
    assert api(student, "GET", "/api/v1/attendance/people")["status"] == 403
    assert api(student, "PUT", f"/api/v1/attendance/lectures/{lecture}/records/x", {"status": "present", "proof": "x"})["status"] == 403
    student.goto(url + "/attendance/")
    student.wait_for_selector("#signed-in:not(.hidden)")
    assert student.locator("#continue").get_attribute("href") == "/attendance/student.html"
    shoot_both(student, "landing-student")
    student.goto(url + "/attendance/admin.html")
    student.wait_for_selector("#gate:not(.hidden)")
    assert "Not for your role" in student.locator("#gate").inner_text()
    student.goto(url + "/attendance/professor.html")
    student.wait_for_selector("#gate:not(.hidden)")
    assert not student_errors, student_errors
    # A student sees the check-ins refused in their name (the photo held up as Boris), in plain words, without distances.
    boris_context = plain.new_context(viewport=SIZES["phone"])
    boris = boris_context.new_page()
    boris_errors = watch(boris)
    sign_in(boris, url, "boris.kralj", passwords["boris.kralj"], "/attendance/student.html")
    refused = boris.locator(f"#courses [data-course='{course}'] .att-refused")
    refused.wait_for()
    report["student_refused"] = refused.inner_text().replace("\n", " | ")
    assert "We could not see you blink in time." in report["student_refused"] and "distance" not in report["student_refused"], report["student_refused"]
    shoot_both(boris, "student-refused")
    assert not boris_errors, boris_errors
    boris_context.close()
    # The administrator deletes a person's face data: the count drops to none, and so do the kept photos.
    admin.reload()
    admin.wait_for_selector("#work:not(.hidden)")
    admin.locator("#people tr[data-username='ana.horvat'] button").click()
    admin.wait_for_selector("#kept-photos img")
    admin.once("dialog", lambda d: d.accept())
    admin.get_by_role("button", name="Delete face data").click()
    admin.wait_for_selector("#people tr[data-username='ana.horvat'] .badge.absent")
    ana = admin.locator("#people tr[data-username='ana.horvat']").get_attribute("data-person")
    faces = json.loads(api(admin, "GET", f"/api/v1/attendance/people/{ana}/faces")["body"])
    assert faces == {"faces": 0, "staleFaces": 0, "staleKeptPhotos": 0, "model": "sface", "photos": []}, faces
    assert admin.locator("#kept-photos img").count() == 0
    assert not admin_errors, admin_errors

    # The hand-over with the administrator's password and face: the administrator's face is
    # enrolled, a browser whose camera shows another photo of her proves it, the professor
    # becomes the administrator and the registrar a professor.
    admin.locator("#role-filter").select_option("")
    results = enrol(ADMIN["username"], [yale(ADMIN_FACE["subject"], k) for k in ADMIN_FACE["enrol"]])
    assert all(c == "ok" for c, _ in results), results
    hand_browser = launch(playwright, clips["admin"])
    hand_context = hand_browser.new_context(viewport={"width": 1280, "height": 800})
    hand_context.add_cookies(admin_context.cookies())
    hand = hand_context.new_page()
    hand_errors = watch(hand)
    hand.goto(url + "/attendance/admin.html#handover-section")
    hand.wait_for_selector("#work:not(.hidden)")
    hand.wait_for_selector("#h-user option", state="attached")
    hand.locator("#h-user").select_option(label=f"{PROFESSOR['name']} (Professor)")
    hand.locator("#h-password").fill(ADMIN["password"])
    hand.once("dialog", lambda d: d.accept())
    hand.get_by_role("button", name="Check my face and hand over").click()
    until(hand, "/administrator now/.test(document.querySelector('#handover-status').textContent)", 60000)
    report["handover"] = hand.locator("#handover-status").inner_text()
    shoot_both(hand, "admin-handover")
    hand.goto(url + "/attendance/admin.html")
    hand.wait_for_selector("#gate:not(.hidden)")
    prof.goto(url + "/attendance/admin.html")
    prof.wait_for_selector("#work:not(.hidden)")
    assert not hand_errors, hand_errors
    hand_browser.close()

    print("attendance report:", json.dumps(report, indent=1, ensure_ascii=False))
    prof_browser.close()
    plain.close()
