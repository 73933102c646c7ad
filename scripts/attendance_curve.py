"""See scripts/attendance-curve."""
import collections, json, math, os, sys, time
sys.path.insert(0, os.path.dirname(__file__))
from attendance_client import APIError, Client, create_admin, serve

FIXTURES = os.environ["SENTIO_FIXTURES"]
FACES = os.path.join(FIXTURES, "faces")
OUT = os.environ.get("ATTENDANCE_CURVE_OUT")


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


def curve(same, diff, thresholds):
    out = []
    for t in thresholds:
        fr = sum(d > t for d in same) / len(same)
        fa = sum(d <= t for d in diff) / len(diff)
        out.append({"threshold": round(t, 4), "falseRejects": fr, "falseAccepts": fa})
    return out


def main():
    pairs = read_pairs()
    process, base, data = serve()
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
                                                          "role": "student", "password": "student-password-1"})
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
            if a in landmarks and b in landmarks:
                results["ratio"][key].append(ratio_distance(ratios(landmarks[a]), ratios(landmarks[b])))
            else:
                results["ratio"][key].append(math.inf)
            if a not in accounts:
                results["gated"][key] += 1
                continue
            try:
                answer = admin.image("POST", f"/api/v1/attendance/people/{accounts[a]}/verify", os.path.join(FACES, b))
            except APIError as error:
                probes[f"{b}: {error.body}"] += 1
                results["gated"][key] += 1
                continue
            results["face"][key].append(answer["match"]["distance"])
            results["facePairs"].append([a, b, same, answer["match"]["distance"]])
        print(f"verified {len(pairs)} pairs in {time.time() - started:.0f} s", file=sys.stderr)
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
        "pairs": {"same": len(face["same"]) + results["gated"]["same"], "different": len(face["different"]) + results["gated"]["different"]},
        "decided": {"same": len(face["same"]), "different": len(face["different"])},
        "gated": results["gated"], "enrolmentRefused": refused, "probesRefused": dict(probes),
        "face": {"chosenThreshold": round(chosen, 4), "at": at,
                 "serverThreshold": 0.44, "atServerThreshold": curve(face["same"], face["different"], [0.44])[0],
                 "curve": curve(face["same"], face["different"], [x / 100 for x in range(30, 81, 2)])},
        "ratioBaseline": {"original3percent": curve(ratio["same"], ratio["different"], [0.03])[0],
                          "curve": curve(ratio["same"], ratio["different"], [x / 100 for x in range(1, 31)])},
    }
    if OUT:
        json.dump({"summary": summary, "distances": results}, open(OUT, "w"))
    print(json.dumps(summary, indent=1))


main()
