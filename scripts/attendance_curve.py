"""See scripts/attendance-curve."""
import collections, json, math, os, sys, time
sys.path.insert(0, os.path.dirname(__file__))
from attendance_client import APIError, Client, create_admin, serve

FIXTURES = os.environ["SENTIO_FIXTURES"]
FACES = os.path.join(FIXTURES, "faces")
OUT = os.environ.get("ATTENDANCE_CURVE_OUT")
PLOT = os.environ.get("ATTENDANCE_CURVE_PLOT")
MODEL = os.environ.get("ATTENDANCE_CURVE_MODEL", "sface")
# The distance scale of each model's descriptors: dlib's Euclidean distances lie around 0.3 to
# 0.7; SFace's unit-length descriptors' (√(2 − 2·cos)) around 0.6 to 1.4.
LOW, HIGH = (0.30, 0.70) if MODEL == "dlib" else (0.60, 1.40)
STEPS = [LOW + (HIGH - LOW) * i / 80 for i in range(81)]


def read_pairs():
    path = os.path.join(FACES, "verification_pairs.tsv")
    if not os.path.exists(path):
        sys.exit(f"attendance-curve: no {path} (set SENTIO_FIXTURES)")
    rows = [line.rstrip("\n").split("\t") for line in open(path)][1:]
    return [(a, b, same == "1") for a, b, same, *_ in rows]


# The original app's method: ratios of facial landmarks compared within ±3 %. Its landmarks
# were Vision's 76-point constellation; here the same kind of points from Sentio's mesh
# (MediaPipe's indices): eye corners, nose tip and wings, mouth corners, chin, cheeks, brows.
MESH = {"rEyeOut": 33, "rEyeIn": 133, "lEyeIn": 362, "lEyeOut": 263, "nose": 1, "noseTop": 168, "rNose": 98, "lNose": 327,
        "rMouth": 61, "lMouth": 291, "chin": 152, "rCheek": 234, "lCheek": 454, "rBrow": 105, "lBrow": 334, "upperLip": 13}


def ratios(points):
    p = {k: points[i] for k, i in MESH.items()}
    d = lambda a, b: math.dist(p[a][:2], p[b][:2])
    eyes = d("rEyeIn", "lEyeIn") + 1e-9
    return [d("rEyeOut", "lEyeOut") / eyes, d("rMouth", "lMouth") / eyes, d("noseTop", "nose") / eyes,
            d("rNose", "lNose") / eyes, d("nose", "chin") / eyes, d("rCheek", "lCheek") / eyes,
            d("rBrow", "lBrow") / eyes, d("nose", "upperLip") / eyes]


def ratio_distance(a, b):
    """The largest relative difference of the ratios: the original accepted when every one was within 3 %."""
    return max(abs(x / y - 1) for x, y in zip(a, b))


def identities():
    rows = [line.rstrip("\n").split("\t") for line in open(os.path.join(FACES, "verification_identities.tsv"))][1:]
    return {name: files.split(",") for name, _, _, files in rows}


def enrolment_protocol(admin):
    """The app's own decision, two-fold: each person enrolled with half their photos (every
    other one), the other half checked against every enrolled person; then the halves swap.
    The people are split between two courses, and each check is POST …/people/{id}/verify?
    course=(the claimed person's course): the kiosk's rule, whose cohort is everyone with an
    enrolled face, of either course. Each check keeps the distance and the server's own
    decision. A fold's faces are deleted before the next, so a probe never meets its own photo."""
    import concurrent.futures
    people = identities()
    checks = []
    gated = collections.Counter()
    for fold in (0, 1):
        courses = [admin.call("POST", "/api/v1/attendance/courses", {"code": f"CURVE{fold}{c}", "title": f"Threshold curve {c}", "academicYear": "2026/27"})
                   for c in "AB"]
        enrolled, course_of, probes = {}, {}, []
        for n, (name, files) in enumerate(sorted(people.items())):
            student = admin.call("POST", "/api/v1/users", {"username": f"f{fold}-{name[:30]}", "displayName": name, "role": "student", "mustChangePassword": False,
                                                           "password": "student-password-1"})
            course_of[name] = courses[n % 2]["id"]
            admin.call("POST", f"/api/v1/attendance/courses/{course_of[name]}/students", {"user": student["id"]})
            for i, file in enumerate(files):
                if i % 2 == fold:
                    try:
                        admin.image("POST", f"/api/v1/attendance/people/{student['id']}/faces", os.path.join(FACES, file))
                        enrolled.setdefault(name, student["id"])
                    except APIError:
                        pass
                else:
                    probes.append((name, file))

        def check(probe):
            name, file = probe
            out, decided = {}, {}
            for other, sid in enrolled.items():
                try:
                    answer = admin.image("POST", f"/api/v1/attendance/people/{sid}/verify?course={course_of[other]}", os.path.join(FACES, file))
                except APIError as error:
                    gated[f"{error.status}: {error.body}"[:160]] += 1
                    return name, file, None, None  # the probe fails the quality gate
                out[other] = answer["match"]["distance"]
                decided[other] = answer["match"]["accepted"]
            return name, file, out, decided
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            for name, file, distances, accepted in pool.map(check, probes):
                checks.append({"person": name, "file": file, "fold": fold, "distances": distances, "accepted": accepted})
        for sid in enrolled.values():
            admin.call("DELETE", f"/api/v1/attendance/people/{sid}/faces")
    print(f"enrolment protocol: probes not decided, by answer: {dict(gated)}", file=sys.stderr)
    return checks


def enrolment_decisions(checks):
    """The server's own decisions (its threshold, everyone enrolled as the cohort)."""
    decided = [c for c in checks if c["accepted"] and c["person"] in c["accepted"]]
    same = [c["accepted"][c["person"]] for c in decided]
    different = [(c["person"], k, c["file"]) for c in decided for k, ok in c["accepted"].items() if k != c["person"] and ok]
    n_diff = sum(len(c["accepted"]) - 1 for c in decided)
    return {"same": len(same), "different": n_diff, "falseRejects": same.count(False) / len(same),
            "falseAccepts": len(different) / n_diff, "falseAcceptsWhich": different}


def enrolment_curve(checks, thresholds):
    """False rejects and accepts of the enrolment protocol from the distances: by the threshold
    alone; with the cohort rule (everyone enrolled: the impostor's own enrolment among them);
    and for strangers — an impostor never enrolled anywhere, their own enrolment left out of
    the cohort, so only the threshold and the other people stand."""
    rows = []
    decided = [c for c in checks if c["distances"] and c["person"] in c["distances"]]
    for t in thresholds:
        fr = fr_c = 0
        fa = fa_c = fa_s = n_diff = 0
        for c in decided:
            d = c["distances"]
            for claimed, dist in d.items():
                others = [v for k, v in d.items() if k != claimed]
                nearest_other = min(others) if others else math.inf
                strangers = [v for k, v in d.items() if k not in (claimed, c["person"])]
                nearest_stranger = min(strangers) if strangers else math.inf
                if claimed == c["person"]:
                    fr += dist > t
                    fr_c += not (dist <= t and dist < nearest_other)
                else:
                    n_diff += 1
                    fa += dist <= t
                    fa_c += dist <= t and dist < nearest_other
                    fa_s += dist <= t and dist < nearest_stranger
        n_same = len(decided)
        rows.append({"threshold": t, "same": n_same, "different": n_diff,
                     "falseRejects": fr / n_same, "falseAccepts": fa / n_diff,
                     "cohort": {"falseRejects": fr_c / n_same, "falseAcceptsEnrolled": fa_c / n_diff, "falseAcceptsStrangers": fa_s / n_diff}})
    return rows


def plot(summary, path):
    """The curves as a small SVG (no plotting library needed): false rejects and false accepts
    against the threshold, for the enrolment protocol (with the cohort rule: enrolled impostors
    and strangers) and for single-photo pairs."""
    W, H, L, B = 720, 360, 60, 40
    x = lambda t: L + (t - LOW) / (HIGH - LOW) * (W - L - 20)
    y = lambda p: H - B - min(p, 0.2) / 0.2 * (H - B - 20)
    lines = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
             '<rect width="100%" height="100%" fill="white"/>',
             f'<line x1="{L}" y1="{H - B}" x2="{W - 20}" y2="{H - B}" stroke="black"/><line x1="{L}" y1="20" x2="{L}" y2="{H - B}" stroke="black"/>']
    for i in range(5):
        t = LOW + (HIGH - LOW) * i / 4
        lines.append(f'<text x="{x(t):.0f}" y="{H - B + 16}" text-anchor="middle">{t:.1f}</text>')
    for p in [0, 0.05, 0.1, 0.15, 0.2]:
        lines.append(f'<text x="{L - 6}" y="{y(p) + 4:.0f}" text-anchor="end">{p * 100:.0f} %</text>')
        lines.append(f'<line x1="{L}" y1="{y(p):.0f}" x2="{W - 20}" y2="{y(p):.0f}" stroke="#ddd"/>')
    lines.append(f'<text x="{(W + L) / 2:.0f}" y="{H - 6}" text-anchor="middle">threshold ({MODEL} descriptor distance)</text>')
    e = summary["enrolment"]["curve"]
    series = [("enrolment: false rejects", "#c0392b", [(r["threshold"], r["cohort"]["falseRejects"]) for r in e], ""),
              ("enrolment: false accepts, enrolled impostors", "#1e8449", [(r["threshold"], r["cohort"]["falseAcceptsEnrolled"]) for r in e], ""),
              ("enrolment: false accepts, strangers", "#2471a3", [(r["threshold"], r["cohort"]["falseAcceptsStrangers"]) for r in e], ""),
              ("pairs: false rejects", "#c0392b", [(r["threshold"], r["falseRejects"]) for r in summary["face"]["curve"]], "4 3"),
              ("pairs: false accepts", "#2471a3", [(r["threshold"], r["falseAccepts"]) for r in summary["face"]["curve"]], "4 3")]
    for i, (name, colour, points, dash) in enumerate(series):
        d = " ".join(f"{x(t):.1f},{y(p):.1f}" for t, p in points if LOW <= t <= HIGH)
        lines.append(f'<polyline points="{d}" fill="none" stroke="{colour}" stroke-width="2" stroke-dasharray="{dash}"/>')
        lines.append(f'<line x1="{W - 300}" y1="{30 + 16 * i}" x2="{W - 275}" y2="{30 + 16 * i}" stroke="{colour}" stroke-width="2" stroke-dasharray="{dash}"/>')
        lines.append(f'<text x="{W - 270}" y="{34 + 16 * i}">{name}</text>')
    t = summary["enrolment"]["atServerThreshold"]["threshold"]
    lines.append(f'<line x1="{x(t):.1f}" y1="20" x2="{x(t):.1f}" y2="{H - B}" stroke="#555" stroke-dasharray="2 2"/>')
    lines.append(f'<text x="{x(t) + 4:.1f}" y="{H - B - 8}">chosen {t:.2f}</text>')
    lines.append("</svg>")
    open(path, "w").write("\n".join(lines) + "\n")


def look_alikes(checks, a="Yale_subject04", b="Yale_subject14"):
    """The two fixture identities dlib could not tell apart: every probe of each against both
    enrolments (the enrolment protocol's distances), the farthest same and the nearest cross."""
    rows = []
    for c in checks:
        if c["person"] in (a, b) and c["distances"]:
            for enrolled in (a, b):
                if enrolled in c["distances"]:
                    rows.append({"probe": c["file"], "person": c["person"], "enrolment": enrolled, "distance": round(c["distances"][enrolled], 4)})
    same = [r["distance"] for r in rows if r["person"] == r["enrolment"]]
    cross = [r["distance"] for r in rows if r["person"] != r["enrolment"]]
    return {"rows": rows, "farthestSame": max(same) if same else None, "nearestCross": min(cross) if cross else None,
            "separated": bool(same and cross and max(same) < min(cross))}


def curve(same, diff, thresholds):
    out = []
    for t in thresholds:
        fr = sum(d > t for d in same) / len(same)
        fa = sum(d <= t for d in diff) / len(diff)
        out.append({"threshold": round(t, 4), "falseRejects": fr, "falseAccepts": fa})
    return out


def main():
    pairs = read_pairs()
    process, base, data = serve(extra=["--face-model", MODEL])
    try:
        user, password = create_admin(data)
        admin = Client(base)
        admin.sign_in(user, password)
        # One account per photo that is the first of a pair: that photo is its whole enrolment.
        firsts = sorted({a for a, _, _ in pairs})
        files = sorted({a for a, _, _ in pairs} | {b for _, b, _ in pairs})
        accounts, refused = {}, {}
        started = time.time()
        for i, file in enumerate(firsts):
            person = admin.call("POST", "/api/v1/users", {"username": f"p{i:04d}", "displayName": file.split("/")[1],
                                                          "role": "student", "password": "student-password-1", "mustChangePassword": False})
            try:
                admin.image("POST", f"/api/v1/attendance/people/{person['id']}/faces", os.path.join(FACES, file))
                accounts[file] = person["id"]
            except APIError as error:
                refused[file] = error.body
        print(f"enrolled {len(accounts)} of {len(firsts)} photos in {time.time() - started:.0f} s", file=sys.stderr)
        # The same pairs, decided by the kiosk's check (POST …/verify) and by the ratio baseline.
        landmarks = {}
        for file in files:
            found = admin.image("POST", "/api/v1/faces", os.path.join(FACES, file))
            if found["faces"]:
                face = max(found["faces"], key=lambda f: f["box"]["width"] * f["box"]["height"])
                # Normalized coordinates to pixels' proportions, so ratios are not bent by the shape.
                aspect = found["height"] / found["width"]
                landmarks[file] = [(q[0], q[1] * aspect) for q in face["landmarks"]]
        # Pairs whose photos pass the kiosk's quality gate are decided by the face check; a pair
        # with a photo the gate refuses (eyes closed, head turned over 20°, face under 80 px)
        # is counted apart: the kiosk asks for another frame instead of deciding.
        results = {"face": {"same": [], "different": []}, "ratio": {"same": [], "different": []},
                   "gated": {"same": 0, "different": 0}, "facePairs": []}
        probes = collections.Counter()
        started = time.time()
        for a, b, same in pairs:
            key = "same" if same else "different"
            ratio = ratio_distance(ratios(landmarks[a]), ratios(landmarks[b])) if a in landmarks and b in landmarks else math.inf
            if a not in accounts:
                results["gated"][key] += 1
                continue
            try:
                answer = admin.image("POST", f"/api/v1/attendance/people/{accounts[a]}/verify", os.path.join(FACES, b))
            except APIError as error:
                probes[f"{b}: {error.body}"] += 1
                results["gated"][key] += 1
                continue
            # Both methods on the same pairs: those the kiosk's quality gate lets through.
            results["face"][key].append(answer["match"]["distance"])
            results["ratio"][key].append(ratio)
            results["facePairs"].append([a, b, same, answer["match"]["distance"]])
        print(f"verified {len(pairs)} pairs in {time.time() - started:.0f} s", file=sys.stderr)
        # The pairs' enrolments go before the app's protocol: its cohort is everyone enrolled,
        # and a probe must not meet its own photo enrolled as someone else.
        for person in accounts.values():
            admin.call("DELETE", f"/api/v1/attendance/people/{person}/faces")
        results["enrolment"] = enrolment_protocol(admin)
        server_threshold = admin.call("GET", "/api/v1/attendance/me")["policy"]["threshold"]
    finally:
        process.terminate()
        process.wait()

    face, ratio = results["face"], results["ratio"]
    diffs = sorted(face["different"])
    # The threshold: the largest distance with no more than 0.1 % false accepts on these pairs.
    allowed = int(len(diffs) * 0.001)
    chosen = diffs[allowed] - 1e-4 if allowed < len(diffs) else max(face["same"])
    at = curve(face["same"], face["different"], [chosen])[0]
    summary = {
        "model": MODEL,
        "pairs": {"same": len(face["same"]) + results["gated"]["same"], "different": len(face["different"]) + results["gated"]["different"]},
        "decided": {"same": len(face["same"]), "different": len(face["different"])},
        "gated": results["gated"], "enrolmentRefused": refused, "probesRefused": dict(probes),
        "face": {"chosenThreshold": round(chosen, 4), "at": at,
                 "serverThreshold": server_threshold, "atServerThreshold": curve(face["same"], face["different"], [server_threshold])[0],
                 "curve": curve(face["same"], face["different"], STEPS)},
        "enrolment": {"probes": len(results["enrolment"]), "gatedProbes": sum(c["distances"] is None for c in results["enrolment"]),
                      "atServerThreshold": enrolment_curve(results["enrolment"], [server_threshold])[0],
                      "serverDecisions": enrolment_decisions(results["enrolment"]),
                      "curve": enrolment_curve(results["enrolment"], STEPS)},
        "yale04and14": look_alikes(results["enrolment"]),
        "ratioBaseline": {"original3percent": curve(ratio["same"], ratio["different"], [0.03])[0],
                          "curve": curve(ratio["same"], ratio["different"], [x / 100 for x in range(1, 31)])},
    }
    if OUT:
        json.dump({"summary": summary, "distances": results}, open(OUT, "w"))
    if PLOT:
        plot(summary, PLOT)
    print(json.dumps(summary, indent=1))


main()
