#!/usr/bin/env python3
"""Writes Sources/SentioServer/Public/api/openapi.json, the OpenAPI 3.0 document of Sentio's HTTP API.

The document is data, kept in this script so it stays readable (shared parameters, error
responses); the server serves the JSON file, and SentioServerTests checks that it names every HTTP
route of the access table and nothing else. Run it after changing a route:
    scripts/make-openapi.py
"""
import json, pathlib

ERR = {"$ref": "#/components/schemas/Error"}
def err(description):
    return {"description": description, "content": {"application/json": {"schema": ERR}}}
def ok_json(schema, description="OK", status="200"):
    return {status: {"description": description, "content": {"application/json": {"schema": schema}}}}
def q(name, schema, description):
    return {"name": name, "in": "query", "required": False, "schema": schema, "description": description}
def path_param(name, description, schema=None):
    return {"name": name, "in": "path", "required": True, "schema": schema or {"type": "string"}, "description": description}

IMAGE_BODY = {
    "required": True,
    "description": "The image: JPEG, PNG or WebP (decoded by its content), at most 16 MiB and 24 megapixels.",
    "content": {t: {"schema": {"type": "string", "format": "binary", "minLength": 1}} for t in ("image/jpeg", "image/png", "image/webp")},
}
STILL_ERRORS = {
    "400": err("A query parameter is unknown or out of range, or the body is empty."),
    "413": err("The body is over 16 MiB."),
    "415": err("The body is not sent as image/jpeg, image/png or image/webp."),
    "422": err("The body is not a readable image (or the pipeline could not use it)."),
    "429": err("Too many requests from this client, or its share of compute time is used; see Retry-After."),
    "503": err("The work ran past its deadline, the server is full of work or of large images, or a model is missing; see Retry-After."),
}
SIGNED_IN_ERRORS = {"401": err("Not signed in."), "403": err("The role may not do this, or the CSRF token or Origin is wrong.")}

def still(summary, cli, schema, params):
    return {"post": {
        "summary": summary, "description": f"What `{cli}` prints.", "tags": ["stills"],
        "parameters": params, "requestBody": IMAGE_BODY,
        "responses": {**ok_json(schema), **STILL_ERRORS},
    }}

def obj(props, required=None, extra=True):
    o = {"type": "object", "properties": props}
    if required: o["required"] = required
    if not extra: o["additionalProperties"] = False
    return o

num = {"type": "number"}
integer = {"type": "integer"}
string = {"type": "string"}
point = {"type": "array", "items": num}
schemas = {
    "Error": obj({"error": obj({"message": string}, ["message"])}, ["error"]),
    "FacesObservation": obj({"width": integer, "height": integer, "faces": {"type": "array", "items": {"type": "object"}}}, ["faces"]),
    "HandsObservation": obj({"width": integer, "height": integer, "hands": {"type": "array", "items": {"type": "object"}}}, ["hands"]),
    "PosesObservation": obj({"width": integer, "height": integer, "poses": {"type": "array", "items": {"type": "object"}}}, ["poses"]),
    "EmbeddedFaces": obj({"faces": {"type": "array", "items": obj({
        "box": obj({"x": num, "y": num, "width": num, "height": num}),
        "landmarks5": {"type": "array", "items": point},
        "descriptor": {"type": "array", "items": num, "minItems": 128, "maxItems": 128}})}}, ["faces"]),
    "FaceComparison": obj({"distance": num, "same": {"type": "boolean"}}, ["distance", "same"], extra=False),
    "ScanReport": {"type": "object", "required": ["species", "cp", "hp", "levels", "ivs", "fields", "sure", "doubts"],
                   "properties": {"sure": {"type": "boolean", "description": "The name, the candy and the numbers agree, and the date does not change the IVs."},
                                  "doubts": {"type": "array", "items": obj({"kind": {"type": "string", "enum": ["name", "candy", "height", "date"]},
                                                                            "message": string, "choices": {"type": "array", "items": string}},
                                                                           ["kind", "message", "choices"])}}},
    "User": obj({"id": string, "username": string, "displayName": string,
                 "role": {"type": "string", "enum": ["admin", "professor", "student", "player"]}, "createdAt": integer,
                 "mustChangePassword": {"type": "boolean"}},
                ["id", "username", "displayName", "role", "createdAt", "mustChangePassword"]),
    "ImportJob": obj({"id": string, "course": string, "state": {"type": "string", "enum": ["queued", "hashing", "saving", "done", "failed"]},
                      "done": integer, "total": integer, "rows": integer, "error": string,
                      "result": obj({"enrolled": integer, "created": {"type": "array", "items": obj({"username": string, "displayName": string, "password": string},
                                                                                                     ["username", "displayName", "password"])}},
                                    ["enrolled", "created"])},
                     ["id", "course", "state", "done", "total", "rows"]),
    "Session": obj({"user": {"$ref": "#/components/schemas/User"}, "csrfToken": string, "expiresAt": integer}, ["user", "csrfToken"]),
    "Room": obj({"code": {"type": "string", "pattern": "^[A-HJKMNP-Z2-9]{6}$"}, "purpose": {"type": "string", "enum": ["camera", "motion", "arcade"]},
                 "createdAt": integer, "expiresAt": integer}, ["code", "purpose", "createdAt", "expiresAt"]),
    "AttendancePerson": obj({"id": string, "username": string, "displayName": string, "role": string, "faces": integer}),
    "Course": obj({"id": string, "code": string, "title": string, "academicYear": string, "students": integer,
                   "professors": {"type": "array", "items": {"type": "object"}}}),
    "Lecture": obj({"id": string, "courseID": string, "title": string, "startsAt": integer, "endsAt": integer,
                    "state": {"type": "string", "enum": ["scheduled", "open", "confirmed"]}, "checkinCode": string, "headcount": integer,
                    "slotDate": {"type": "string", "format": "date", "description": "The local date of the timetable slot it was made from."}}),
    "TimetableSlot": obj({"id": string, "courseID": string, "weekday": {"type": "integer", "minimum": 1, "maximum": 7}, "startTime": string,
                          "durationMinutes": integer, "title": string, "room": string, "firstDate": string, "lastDate": string, "timeZone": string,
                          "exceptions": {"type": "array", "items": {"type": "string", "format": "date"}}},
                         ["id", "courseID", "weekday", "startTime", "durationMinutes", "title", "room", "firstDate", "lastDate", "timeZone", "exceptions"]),
    "AttendanceReport": obj({"from": integer, "to": integer, "threshold": num, "courses": {"type": "array", "items": obj({
        "courseID": string, "code": string, "title": string, "academicYear": string, "lecturesHeld": integer, "flagged": integer,
        "students": {"type": "array", "items": obj({"studentID": string, "username": string, "displayName": string, "present": integer, "late": integer,
                                                    "excused": integer, "absent": integer,
                                                    "percent": {"type": "number", "description": "(present + late) ÷ (present + late + absent) × 100; absent when nothing counted."},
                                                    "flagged": {"type": "boolean"}})}})}},
                            ["from", "to", "threshold", "courses"]),
    "AuditEntry": obj({"id": integer, "at": integer, "actor": {"type": "string", "nullable": True}, "action": string,
                       "subject": {"type": "string", "nullable": True}, "detail": {"type": "string", "nullable": True}}, ["id", "at", "action"]),
    "IV": obj({"level": num, "attack": integer, "defense": integer, "stamina": integer, "percent": num},
              ["level", "attack", "defense", "stamina", "percent"]),
    "IVEntry": obj({"species": string, "form": {"type": "string", "nullable": True},
                    "cp": {"type": "integer", "nullable": True, "minimum": 10, "maximum": 100000},
                    "hp": {"type": "integer", "minimum": 10, "maximum": 10000},
                    "stardust": {"type": "integer", "nullable": True}, "level": {"type": "number", "nullable": True},
                    "trainerLevel": {"type": "integer", "nullable": True, "minimum": 1, "maximum": 80},
                    "lucky": {"type": "boolean"}, "shadow": {"type": "boolean"}, "purified": {"type": "boolean"},
                    "obtained": {"type": "string", "enum": ["wild", "weather", "hatched", "raid", "research", "trade", "lucky-trade", "purified"]},
                    "appraisal": {"nullable": True, "oneOf": [
                        obj({"kind": {"type": "string", "enum": ["stars"]}, "stars": {"type": "integer", "minimum": 0, "maximum": 4},
                             "bars": {"type": "array", "minItems": 3, "maxItems": 3, "items": {"type": "integer", "minimum": 0, "maximum": 15},
                                      "description": "Attack, defense, stamina, when read exactly."}}, ["kind", "stars"]),
                        obj({"kind": {"type": "string", "enum": ["leader"]}, "overall": {"type": "integer", "minimum": 1, "maximum": 4},
                             "best": {"type": "integer", "minimum": 1, "maximum": 4},
                             "bestStats": {"type": "array", "items": {"type": "string", "enum": ["attack", "defense", "stamina"]}}},
                            ["kind", "overall", "best"])]}, "statsAsOf": {"type": "string", "nullable": True, "format": "date"}},
                   ["species", "hp"]),
    "IVEvaluation": obj({"species": {"type": "object"}, "combinations": {"type": "array", "items": {"$ref": "#/components/schemas/IV"}},
                         "levels": {"type": "array", "items": num}, "problem": {"type": "string", "nullable": True},
                         "plan": {"type": "array", "nullable": True}, "leagues": {"type": "array", "nullable": True},
                         "evolveNow": {"type": "array", "nullable": True, "description": "Each later evolution's CP and HP were it evolved now, over the combinations."}},
                        ["species", "combinations", "levels"]),
    "CollectedPokemon": obj({"id": string, "species": string, "form": string, "cp": {"type": "integer", "nullable": True}, "hp": integer,
                             "ivs": {"type": "array", "items": {"$ref": "#/components/schemas/IV"}}, "scans": integer},
                            ["id", "species", "form", "hp", "ivs", "scans"]),
}
COLLECTION_QUERY = [
    q("search", string, "Part of the species or nickname."),
    q("sort", {"type": "string", "enum": ["date", "iv", "cp", "hp", "name"]}, "Sort key (date)."),
    q("order", {"type": "string", "enum": ["asc", "desc"]}, "Order (desc)."),
    q("species", string, "Only this species."),
    q("minPercent", {"type": "number", "minimum": 0, "maximum": 100}, "Only those whose IV percentage can reach this."),
    q("lucky", {"type": "boolean"}, "Only lucky (true) or not lucky (false)."),
    q("shadow", {"type": "boolean"}, "Only shadow (true) or not (false)."),
]

USERNAME = {"type": "string", "pattern": "^[A-Za-z0-9._-]{3,40}$", "description": "3 to 40 letters a–z, digits, dots, dashes or underscores (kept lower-cased)."}
PASSWORD = {"type": "string", "minLength": 10, "maxLength": 72, "pattern": "^[^\\u0000-\\u001f\\u007f-\\u009f]*$",
            "description": "10 characters or more, at most 72 bytes in UTF-8 (bcrypt reads no further), no control characters."}
def text(maximum, description=""):
    """A short typed field (SentioStore's TextField): at most `maximum` characters (code points,
    as sent), no control characters, not only spaces; kept without surrounding spaces."""
    return {"type": "string", "maxLength": maximum, "allOf": [{"pattern": "^[^\\u0000-\\u001f\\u007f-\\u009f]*$"}, {"pattern": "\\S"}],
            "description": (description + " " if description else "") + f"1 to {maximum} characters, not only spaces, no control characters."}
DISPLAY_NAME = text(100)
# 2026/27: four digits, a slash, the next year's last two (every pair spelled out: 99/00 too).
ACADEMIC_YEAR = {"type": "string", "pattern": "^[0-9]{2}(" + "|".join(f"{y:02d}/{(y + 1) % 100:02d}" for y in range(100)) + ")$",
                 "description": "A year like 2026/27."}
LEVELS = ["eyes", "smile", "mouth", "nose", "dark", "colours", "fruit", "hand", "drawing", "loud", "keyword", "turns",
          "theme", "plugs", "offline", "volume", "sos"]
DEVICE_LEVELS = ["theme", "plugs", "offline", "volume"]

# What the scanner read, field by field (the scan's answer), kept with a saved scan.
SCAN_FIELDS = {"type": "object", "description": "The scan's fields as POST /api/v1/iv/scan answered them.",
               "additionalProperties": {"type": "object", "required": ["text", "confidence", "box"],
                                        "properties": {"text": {"type": "string"}, "confidence": {"type": "number"},
                                                       "box": {"type": "array", "items": {"type": "integer"}}}}}

# A time: Unix milliseconds from 1970 to the end of 9999 (AttendanceRegister.lastMillisecond).
MILLISECONDS = {"type": "integer", "minimum": 0, "maximum": 253_402_300_799_999}
REPORT_QUERY = [
    q("from", {"type": "string", "format": "date"}, "First day, included (in zone)."),
    q("to", {"type": "string", "format": "date"}, "Last day, included (in zone)."),
    q("course", {"type": "string"}, "One course (default: every course of the caller's)."),
    q("threshold", {"type": "number", "minimum": 0, "maximum": 100}, "Flag students under this share, in percent (default 75)."),
    q("zone", {"type": "string"}, "IANA time zone of the dates (default the server's)."),
]

ref = lambda name: {"$ref": f"#/components/schemas/{name}"}
json_body = lambda schema: {"required": True, "content": {"application/json": {"schema": schema}}}

paths = {
    "/healthz": {"get": {"summary": "Ready: answers once the server listens.", "tags": ["operations"],
                         "responses": ok_json(obj({"status": {"type": "string", "enum": ["ok"]}, "database": {"type": "string", "enum": ["sqlite", "postgres"]}}, ["status"]))}},
    "/metrics": {"get": {"summary": "Prometheus metrics (to this machine's own address, or the administrator).", "tags": ["operations"],
                         "responses": {"200": {"description": "Prometheus text format", "content": {"text/plain": {"schema": string}}},
                                       "403": err("Neither this machine's address nor the administrator.")}}},
    "/api/v1/openapi.json": {"get": {"summary": "This document.", "tags": ["operations"],
                                     "responses": ok_json({"type": "object"})}},
    "/api/v1/faces": still("Faces, the 468-point mesh (478 with irises) and the face signals.", "sentio faces --json", ref("FacesObservation"), [
        q("model", {"type": "string", "enum": ["short", "full"]}, "Detector: short range (about 2 m) or full range (about 5 m)."),
        q("minScore", {"type": "number", "minimum": 0, "maximum": 1}, "Minimum detection score."),
        q("iris", {"type": "boolean"}, "Refine the irises.")]),
    "/api/v1/hands": still("Hands and their 21 joints.", "sentio hands --json", ref("HandsObservation"), [
        q("model", {"type": "string", "enum": ["full", "lite"]}, "Models."),
        q("maxHands", {"type": "integer", "minimum": 1, "maximum": 4}, "Most hands to report.")]),
    "/api/v1/pose": still("A person's 33 body landmarks.", "sentio pose --json", ref("PosesObservation"), []),
    "/api/v1/faces/embed": still("Each face's box, 5 landmarks and 128-number descriptor.", "sentio face embed --json", ref("EmbeddedFaces"), [
        q("model", {"type": "string", "enum": ["sface", "dlib"]}, "The descriptor: sface (default; unit length) or dlib. detector, upsample and jitter are dlib's: with sface they are a 400."),
        q("detector", {"type": "string", "enum": ["blazeface", "mmod"]}, "dlib: face detector."),
        q("upsample", {"type": "integer", "minimum": 0, "maximum": 1}, "dlib with mmod: double the image once first (slow on large photos)."),
        q("jitter", {"type": "integer", "minimum": 0, "maximum": 10}, "dlib: average N jittered chips.")]),
    "/api/v1/faces/compare": {"post": {
        "summary": "Compare the largest face of two photos.", "description": "What `sentio face compare --json` prints.", "tags": ["stills"],
        "parameters": [q("model", {"type": "string", "enum": ["sface", "dlib"]}, "The descriptor: sface (default) or dlib."),
                       q("threshold", {"type": "number", "minimum": 0, "maximum": 2}, "Same person below this distance (SFace 1.12, dlib 0.6)."),
                       q("jitter", {"type": "integer", "minimum": 0, "maximum": 10}, "dlib only: average N jittered chips (with sface a 400).")],
        "requestBody": {"required": True, "content": {"multipart/form-data": {"schema": obj({
            "a": {"type": "string", "format": "binary", "minLength": 1}, "b": {"type": "string", "format": "binary", "minLength": 1}}, ["a", "b"])}}},
        "responses": {**ok_json(ref("FaceComparison")), **STILL_ERRORS, "415": err("Not a multipart/form-data form.")}}},
    "/api/v1/iv/scan": still("Read a Pokémon GO screenshot and compute the IVs.", "sentio iv scan --json", ref("ScanReport"), [
        q("trainerLevel", {"type": "integer", "minimum": 1, "maximum": 80}, "The trainer's level (fixes the Pokémon's level from the arc)."),
        q("statsAsOf", {"type": "string", "format": "date"}, "Use the base stats in force on this date (YYYY-MM-DD).")]),
    "/api/v1/session": {
        "post": {"summary": "Sign in.", "tags": ["accounts"],
                 "description": "Sets the session cookie (HttpOnly, SameSite=Strict) and sentio_signed_in=1, a readable hint the pages use to skip the session check for guests; the answer carries the CSRF token for X-CSRF-Token.",
                 "requestBody": json_body(obj({"username": string, "password": string}, ["username", "password"])),  # any text: a wrong one is a 401
                 "responses": {**ok_json(ref("Session")), "400": err("Malformed JSON."), "401": err("Wrong user name or password."),
                               "403": err("A cross-site request."), "413": err("Body over 64 KiB."), "415": err("Not JSON."),
                               "429": err("Too many failed sign-ins; see Retry-After.")}},
        "get": {"summary": "Who is signed in, and the CSRF token.", "tags": ["accounts"],
                "responses": {**ok_json(ref("Session")), **SIGNED_IN_ERRORS}},
        "delete": {"summary": "Sign out.", "tags": ["accounts"],
                   "responses": {"204": {"description": "Signed out."}, **SIGNED_IN_ERRORS}},
    },
    "/api/v1/session/password": {
        "put": {"summary": "Change your password.", "tags": ["accounts"],
                "description": "Needs the current password; ends the user's other sessions. A user whose password someone else chose "
                               "(mustChangePassword) may call nothing else first.",
                "requestBody": json_body(obj({"currentPassword": string, "newPassword": PASSWORD},
                                             ["currentPassword", "newPassword"])),
                "responses": {**ok_json(ref("Session")), "400": err("The new password is too short, too long or the same."),
                              "413": err("Body over 64 KiB."), "415": err("Not JSON."),
                              "429": err("Too many wrong current passwords; see Retry-After."), **SIGNED_IN_ERRORS}},
    },
    "/api/v1/users": {
        "get": {"summary": "All users (admin).", "tags": ["accounts"],
                "responses": {**ok_json({"type": "array", "items": ref("User")}), **SIGNED_IN_ERRORS}},
        "post": {"summary": "Create a user (admin).", "tags": ["accounts"],
                 "requestBody": json_body(obj({"username": USERNAME, "displayName": DISPLAY_NAME,
                                               "role": {"type": "string", "enum": ["admin", "professor", "student", "player"]},
                                               "password": PASSWORD,
                                               "mustChangePassword": {"type": "boolean", "description": "Default true: the user replaces "
                                                                      "the password at the first sign-in."}},
                                              ["username", "role", "password"])),
                 "responses": {**ok_json(ref("User"), "Created", "201"), "400": err("A field is missing or invalid."),
                               "409": err("The user name is taken."), "413": err("Body over 64 KiB."), "415": err("Not JSON."),
                               **SIGNED_IN_ERRORS}},
    },
    "/api/v1/users/{id}": {
        "parameters": [path_param("id", "The user's id.")],
        "get": {"summary": "A user (admin, or the user).", "tags": ["accounts"],
                "responses": {**ok_json(ref("User")), "404": err("No such user."), **SIGNED_IN_ERRORS}},
        "delete": {"summary": "Delete a user and their sessions (admin, or the user).", "tags": ["accounts"],
                   "responses": {"204": {"description": "Deleted."}, "404": err("No such user."), **SIGNED_IN_ERRORS}},
    },
    "/api/v1/audit": {"get": {"summary": "The audit trail, newest first (admin).", "tags": ["accounts"],
                              "parameters": [q("limit", {"type": "integer", "minimum": 1, "maximum": 1000}, "How many entries (100).")],
                              "responses": {**ok_json({"type": "array", "items": ref("AuditEntry")}), "400": err("Bad limit."), **SIGNED_IN_ERRORS}}},
    "/api/v1/rooms": {"post": {
        "summary": "Open a pairing room for an hour.", "tags": ["pairing"],
        "requestBody": {"required": False, "content": {"application/json": {"schema": obj({"purpose": {"type": "string", "enum": ["camera", "motion", "arcade", None], "nullable": True,
                                                                                                     "description": "What the phone joins for (null or left out: camera)."}})}}},
        "responses": {**ok_json(obj({"room": ref("Room"), "joinURL": string}, ["room", "joinURL"]), "Opened", "201"),
                      "400": err("Bad purpose or JSON."), "403": err("A cross-site request."), "413": err("Body over 64 KiB."),
                      "415": err("Not JSON."), "429": err("Too many rooms opened.")}}},
    "/api/v1/rooms/{code}": {
        "parameters": [path_param("code", "The room's code.")],
        "get": {"summary": "A room, if open.", "tags": ["pairing"], "responses": {**ok_json(ref("Room")), "404": err("No open room."), "429": err("Too many wrong codes from this client; see Retry-After.")}}},
    "/api/v1/rooms/{code}/qr.svg": {
        "parameters": [path_param("code", "The room's code.")],
        "get": {"summary": "The QR code of the address a phone opens to join.", "tags": ["pairing"],
                "responses": {"200": {"description": "SVG", "content": {"image/svg+xml": {"schema": string}}}, "404": err("No open room."),
                              "429": err("Too many wrong codes from this client; see Retry-After.")}}},
    # The IV application (docs/iv-app.md).
    "/api/v1/iv/evaluate": {"post": {
        "summary": "An IV entry (what the scan read, corrected) → every combination, and for the chosen one its power-up plan and league ranks.",
        "tags": ["iv"],
        "requestBody": json_body(obj({"entry": ref("IVEntry"), "chosen": ref("IV"),
                                      "rules": obj({"maxLevel": num, "ivFloor": {"type": "integer", "minimum": 0, "maximum": 15}})}, ["entry"])),
        "responses": {**ok_json(ref("IVEvaluation")), "400": err("Malformed JSON."), "403": err("A cross-site request."),
                      "413": err("Body over 64 KiB."), "415": err("Not JSON."),
                      "422": err("A field out of range, an unknown species or form, or a chosen combination the entry does not allow."),
                      "429": err("Too many requests from this client; see Retry-After.")}}},
    "/api/v1/iv/species": {"get": {"summary": "Every species and form of the game data.", "tags": ["iv"],
                                   "responses": {**ok_json({"type": "array", "items": obj({"dex": integer, "name": string, "form": string})}),
                                                 "400": err("A query parameter.")}}},
    "/api/v1/iv/species/{name}": {
        "parameters": [path_param("name", "The species' name.")],
        "get": {"summary": "A species' game info: base stats, evolutions and candy, CP per level, power-up costs, best IVs per league, dated stats.",
                "tags": ["iv"], "parameters": [q("form", string, "The form (Normal).")],
                "responses": {**ok_json({"type": "object"}), "400": err("A query parameter."), "404": err("No such species or form."),
                              "429": err("Too many requests from this client; see Retry-After.")}}},
    "/api/v1/iv/collection": {
        "get": {"summary": "The player's Pokémon, searched, filtered and sorted.", "tags": ["iv"], "parameters": COLLECTION_QUERY,
                "responses": {**ok_json({"type": "array", "items": ref("CollectedPokemon")}), "400": err("A query parameter."), **SIGNED_IN_ERRORS}},
        "post": {"summary": "Save a scan: joins an earlier scan of the same Pokémon, or the same screenshot again only updates its date.",
                 "tags": ["iv"],
                 "requestBody": {"required": True, "content": {
                     "multipart/form-data": {"schema": obj({"entry": ref("IVEntry"), "fields": SCAN_FIELDS, "image": {"type": "string", "format": "binary", "minLength": 1}}, ["entry"]),
                                             "encoding": {"entry": {"contentType": "application/json"}, "fields": {"contentType": "application/json"},
                                                          "image": {"contentType": "image/jpeg, image/png, image/webp"}}},
                     "application/json": {"schema": obj({"entry": ref("IVEntry"), "fields": SCAN_FIELDS}, ["entry"])}}},
                 "responses": {**ok_json({"type": "object"}, "Saved (joined or the same screenshot)"), **ok_json({"type": "object"}, "A new Pokémon", "201"),
                               "400": err("A malformed form or JSON."), "413": err("Over the size limit."), "415": err("Not a form or JSON, or the image is not JPEG, PNG or WebP."),
                               "422": err("No IV combination fits, or a field out of range."),
                               "429": err("Too many requests from this client; see Retry-After."), **SIGNED_IN_ERRORS}},
    },
    "/api/v1/iv/collection/{pokemon}": {
        "parameters": [path_param("pokemon", "The Pokémon's id.")],
        "get": {"summary": "One of the player's Pokémon with its scans.", "tags": ["iv"],
                "responses": {**ok_json({"type": "object"}), "404": err("Not in the player's collection."), **SIGNED_IN_ERRORS}},
        "put": {"summary": "Correct the latest scan's entry and the nickname; the IVs are recomputed.", "tags": ["iv"],
                "requestBody": json_body(obj({"entry": ref("IVEntry"), "nickname": {"type": "string", "nullable": True}}, ["entry"])),
                "responses": {**ok_json(ref("CollectedPokemon")), "400": err("Malformed JSON."), "404": err("Not in the player's collection."),
                              "413": err("Body over 64 KiB."), "415": err("Not JSON."), "422": err("No IV combination fits the correction."),
                              "429": err("Too many requests from this client; see Retry-After."), **SIGNED_IN_ERRORS}},
        "delete": {"summary": "Delete the Pokémon, its scans and screenshots.", "tags": ["iv"],
                   "responses": {"204": {"description": "Deleted."}, "404": err("Not in the player's collection."), **SIGNED_IN_ERRORS}},
    },
    "/api/v1/iv/scans/{scan}/image": {
        "parameters": [path_param("scan", "The scan's id.")],
        "get": {"summary": "A scan's screenshot.", "tags": ["iv"],
                "responses": {"200": {"description": "The image as uploaded", "content": {t: {"schema": {"type": "string", "format": "binary"}} for t in ("image/jpeg", "image/png", "image/webp")}},
                              "404": err("No screenshot, or not the player's."), **SIGNED_IN_ERRORS}},
    },
    "/api/v1/iv/collection.csv": {
        "get": {"summary": "The collection as Poke Genie's CSV export.", "tags": ["iv"], "parameters": COLLECTION_QUERY,
                "responses": {"200": {"description": "CSV", "content": {"text/csv": {"schema": string}}}, "400": err("A query parameter."),
                              "429": err("Too many requests from this client; see Retry-After."), **SIGNED_IN_ERRORS}},
        "post": {"summary": "Import a Poke Genie CSV: all rows or none.", "tags": ["iv"],
                 "requestBody": {"required": True, "content": {"text/csv": {"schema": {"type": "string", "minLength": 1}}}},
                 "responses": {**ok_json(obj({"imported": integer}, ["imported"]), "Imported", "201"), "400": err("Not UTF-8."),
                               "413": err("Over 8 MiB."), "415": err("Not text/csv."), "422": err("A line that does not parse or fit, named."),
                               "429": err("Too many requests from this client; see Retry-After."), **SIGNED_IN_ERRORS}},
    },
    "/api/v1/iv/collection-by-species": {"get": {"summary": "The collection by species: how many, and the best IV percentage.", "tags": ["iv"],
                                                 "responses": {**ok_json({"type": "array", "items": obj({"species": string, "form": string, "count": integer, "bestPercent": num})}),
                                                               "400": err("A query parameter."), **SIGNED_IN_ERRORS}}},
    # The attendance application (docs/attendance.md). Roles enter by the access table; a course
    # of someone else's answers 404; professors need a face check in their session first.
    "/api/v1/attendance/me": {"get": {"summary": "The match policy and whether this session's face is checked.", "tags": ["attendance"],
                                      "responses": {**ok_json(obj({"policy": obj({"model": {"type": "string", "enum": ["sface", "dlib"]}, "threshold": num, "identificationMargin": num}), "faceVerified": {"type": "boolean"}})), **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/people": {"get": {"summary": "People with their role and enrolled face count (admin, professor).", "tags": ["attendance"],
                                          "parameters": [q("role", {"type": "string", "enum": ["admin", "professor", "student", "player"]}, "Only this role.")],
                                          "responses": {**ok_json({"type": "array", "items": ref("AttendancePerson")}), "400": err("A query parameter."), **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/courses": {
        "get": {"summary": "The courses the caller sees: all (admin), taught (professor), attended (student).", "tags": ["attendance"],
                "parameters": [q("year", ACADEMIC_YEAR, "Only this academic year, e.g. 2026/27.")],
                "responses": {**ok_json({"type": "array", "items": ref("Course")}), "400": err("A query parameter."), **SIGNED_IN_ERRORS}},
        "post": {"summary": "Create a course (admin).", "tags": ["attendance"],
                 "requestBody": json_body(obj({"code": text(20), "title": text(120), "academicYear": ACADEMIC_YEAR}, ["code", "title", "academicYear"])),
                 "responses": {**ok_json(ref("Course"), "Created", "201"), "400": err("Malformed JSON."), "409": err("The code exists in that year."),
                               "413": err("Body over 64 KiB."), "415": err("Not JSON."), "422": err("A field out of range."), **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/courses/{course}": {
        "parameters": [path_param("course", "The course's id.")],
        "get": {"summary": "A course with its professors.", "tags": ["attendance"], "responses": {**ok_json(ref("Course")), "404": err("No such course of yours."), **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/courses/{course}/professors": {
        "parameters": [path_param("course", "The course's id.")],
        "post": {"summary": "Assign a professor (admin).", "tags": ["attendance"], "requestBody": json_body(obj({"user": string}, ["user"])),
                 "responses": {**ok_json(ref("Course")), "400": err("Malformed JSON."), "404": err("No such course."), "413": err("Body over 64 KiB."),
                               "415": err("Not JSON."), "422": err("No such person, or not a professor."), **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/courses/{course}/professors/{user}": {
        "parameters": [path_param("course", "The course's id."), path_param("user", "The professor's id.")],
        "delete": {"summary": "Unassign a professor (admin).", "tags": ["attendance"], "responses": {"204": {"description": "Done."}, "404": err("No such course."), **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/courses/{course}/students": {
        "parameters": [path_param("course", "The course's id.")],
        "get": {"summary": "The course's students (admin, its professors).", "tags": ["attendance"],
                "responses": {**ok_json({"type": "array", "items": ref("AttendancePerson")}), "404": err("No such course of yours."), **SIGNED_IN_ERRORS}},
        "post": {"summary": "Enrol a student (admin).", "tags": ["attendance"], "requestBody": json_body(obj({"user": string}, ["user"])),
                 "responses": {**ok_json({"type": "array", "items": ref("AttendancePerson")}), "400": err("Malformed JSON."), "404": err("No such course."),
                               "413": err("Body over 64 KiB."), "415": err("Not JSON."), "422": err("No such person, or not a student."), **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/courses/{course}/students/{user}": {
        "parameters": [path_param("course", "The course's id."), path_param("user", "The student's id.")],
        "delete": {"summary": "Unenrol a student (admin).", "tags": ["attendance"], "responses": {"204": {"description": "Done."}, "404": err("No such course."), **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/courses/{course}/students.csv": {
        "parameters": [path_param("course", "The course's id.")],
        "post": {"summary": "Import students from CSV (username, display name) as a background job (admin): existing students enrolled, "
                            "new ones created with a first password to change at the first sign-in; all or nothing.",
                 "tags": ["attendance"], "requestBody": {"required": True, "content": {"text/csv": {"schema": {"type": "string", "minLength": 1}}}},
                 "responses": {**ok_json(ref("ImportJob"), "Queued; poll the job", "202"),
                               "400": err("Not UTF-8."), "404": err("No such course."), "413": err("Over 1 MiB."),
                               "415": err("Not text/csv."), "422": err("A bad line (user name, display name), named; no rows; over 2000 rows."),
                               "503": err("Too many imports waiting; see Retry-After."), **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/imports/{job}": {
        "parameters": [path_param("job", "The import's id.")],
        "get": {"summary": "An import job of yours: its state and progress; when done, the result with the first passwords (kept 30 minutes).",
                "tags": ["attendance"], "responses": {**ok_json(ref("ImportJob")), "404": err("No such import of yours."), **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/courses/{course}/lectures": {
        "parameters": [path_param("course", "The course's id.")],
        "get": {"summary": "The course's lectures, newest first.", "tags": ["attendance"],
                "responses": {**ok_json({"type": "array", "items": ref("Lecture")}), "404": err("No such course of yours."), **SIGNED_IN_ERRORS}},
        "post": {"summary": "Plan a lecture (admin, its professors).", "tags": ["attendance"],
                 "requestBody": json_body(obj({"title": text(120), "startsAt": {**MILLISECONDS, "description": "Unix milliseconds."},
                                              "endsAt": {**MILLISECONDS, "description": "Unix milliseconds, after startsAt and within 12 hours of it."}},
                                             ["title", "startsAt", "endsAt"])),
                 "responses": {**ok_json(ref("Lecture"), "Created", "201"), "400": err("Malformed JSON."), "404": err("No such course of yours."),
                               "413": err("Body over 64 KiB."), "415": err("Not JSON."), "422": err("A field out of range."), **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/courses/{course}/attendance.csv": {
        "parameters": [path_param("course", "The course's id.")],
        "get": {"summary": "The course's saved records as CSV.", "tags": ["attendance"],
                "responses": {"200": {"description": "CSV", "content": {"text/csv": {"schema": string}}}, "404": err("No such course of yours."), **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/lectures/{lecture}": {
        "parameters": [path_param("lecture", "The lecture's id.")],
        "get": {"summary": "The roll: pending check-ins, who is missing, saved records.", "tags": ["attendance"],
                "responses": {**ok_json({"type": "object"}), "404": err("No such lecture of yours."), **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/lectures/{lecture}/open": {
        "parameters": [path_param("lecture", "The lecture's id.")],
        "post": {"summary": "Open the lecture for check-in; answers the room code for students' phones.", "tags": ["attendance"],
                 "responses": {**ok_json(ref("Lecture")), "404": err("No such lecture of yours."), "409": err("Already confirmed."), **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/lectures/{lecture}/confirm": {
        "parameters": [path_param("lecture", "The lecture's id.")],
        "post": {"summary": "End the lecture with the professor's face (a fresh proof): every enrolled student's record is saved.", "tags": ["attendance"],
                 "requestBody": json_body(obj({"headcount": {"type": "integer", "minimum": 0, "maximum": 10000, "nullable": True}, "proof": string}, ["proof"])),
                 "responses": {**ok_json(obj({"lecture": ref("Lecture"), "present": integer, "late": integer, "absent": integer, "headcountDifference": {"type": "integer", "nullable": True}})),
                               "400": err("Malformed JSON."), "404": err("No such lecture of yours."), "409": err("Not open, or already confirmed."),
                               "413": err("Body over 64 KiB."), "415": err("Not JSON."), "422": err("A field out of range."), **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/lectures/{lecture}/records/{student}": {
        "parameters": [path_param("lecture", "The lecture's id."), path_param("student", "The student's id.")],
        "put": {"summary": "Change a saved record, with the professor's face (a fresh proof).", "tags": ["attendance"],
                "requestBody": json_body(obj({"status": {"type": "string", "enum": ["present", "late", "absent", "excused"]},
                                              "remark": {"type": "string", "nullable": True, "maxLength": 200, "pattern": "^[^\\u0000-\\u001f\\u007f-\\u009f]*$",
                                                         "description": "The professor's note, one line; absent or null leaves the record's remark, empty clears it."},
                                              "proof": string}, ["status", "proof"])),
                "responses": {**ok_json({"type": "object"}), "400": err("Malformed JSON."), "404": err("No such lecture or record."), "409": err("Not confirmed yet."),
                              "413": err("Body over 64 KiB."), "415": err("Not JSON."), "422": err("The remark is over 200 characters or has a line break."),
                              **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/courses/{course}/slots": {
        "parameters": [path_param("course", "The course's id.")],
        "get": {"summary": "The course's weekly timetable slots, with their exception dates (admin, its professors).", "tags": ["attendance"],
                "responses": {**ok_json({"type": "array", "items": ref("TimetableSlot")}), "404": err("No such course of yours."), **SIGNED_IN_ERRORS}},
        "post": {"summary": "Add a weekly slot: a weekday and a local wall time in an IANA time zone (default the server's), from a first to a last date.",
                 "tags": ["attendance"],
                 "requestBody": json_body(obj({"weekday": {"type": "integer", "minimum": 1, "maximum": 7, "description": "1 Monday … 7 Sunday."},
                                              "startTime": {"type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$", "description": "Local wall time, HH:MM."},
                                              "durationMinutes": {"type": "integer", "minimum": 1, "maximum": 720},
                                              "title": text(80), "room": {"type": "string", "nullable": True, "maxLength": 30, "pattern": "^[^\\u0000-\\u001f\\u007f-\\u009f]*$"},
                                              "firstDate": {"type": "string", "format": "date"},
                                              "lastDate": {"type": "string", "format": "date", "description": "On or after firstDate, within 370 days of it."},
                                              "timeZone": {"type": "string", "nullable": True, "description": "An IANA name such as Europe/Ljubljana; absent or null: the server's."}},
                                             ["weekday", "startTime", "durationMinutes", "title", "firstDate", "lastDate"])),
                 "responses": {**ok_json(ref("TimetableSlot"), "Created", "201"), "400": err("Malformed JSON."), "404": err("No such course of yours."),
                               "413": err("Body over 64 KiB."), "415": err("Not JSON."), "422": err("A field out of range (named in the message)."), **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/courses/{course}/slots/{slot}": {
        "parameters": [path_param("course", "The course's id."), path_param("slot", "The slot's id.")],
        "delete": {"summary": "Delete a slot and its lectures never opened; opened and confirmed ones stay as single lectures.", "tags": ["attendance"],
                   "responses": {**ok_json(obj({"removedLectures": integer})), "404": err("No such course or slot of yours."), **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/courses/{course}/slots/{slot}/exceptions": {
        "parameters": [path_param("course", "The course's id."), path_param("slot", "The slot's id.")],
        "post": {"summary": "A date when the slot does not take place; its lecture, if made and never opened, is removed.", "tags": ["attendance"],
                 "requestBody": json_body(obj({"date": {"type": "string", "format": "date"}}, ["date"])),
                 "responses": {**ok_json(ref("TimetableSlot"), "Created", "201"), "400": err("Malformed JSON."), "404": err("No such course or slot of yours."),
                               "409": err("That date's lecture was already opened."), "413": err("Body over 64 KiB."), "415": err("Not JSON."),
                               "422": err("Not a date of the slot (another weekday, or outside its dates)."), **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/courses/{course}/slots/{slot}/exceptions/{date}": {
        "parameters": [path_param("course", "The course's id."), path_param("slot", "The slot's id."), path_param("date", "The exception's date, YYYY-MM-DD.")],
        "delete": {"summary": "Take an exception back (the next POST …/timetable makes that date's lecture).", "tags": ["attendance"],
                   "responses": {**ok_json(ref("TimetableSlot")), "404": err("No such course, slot or exception."), **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/courses/{course}/timetable": {
        "parameters": [path_param("course", "The course's id.")],
        "post": {"summary": "Make the scheduled lectures of every slot of the course, except the exception dates. Idempotent: a date that has its lecture gets no second one.",
                 "tags": ["attendance"],
                 "responses": {**ok_json(obj({"created": integer, "existing": integer, "skipped": integer})), "404": err("No such course of yours."), **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/report": {"get": {
        "summary": "Attendance per course and student for lectures held (confirmed) with a start in [from, to]: counts and the share (present + late) ÷ (present + late + absent); excused counts neither way. "
                   "A professor's courses (or one), every course for the administrator.",
        "tags": ["attendance"], "parameters": REPORT_QUERY,
        "responses": {**ok_json(ref("AttendanceReport")), "400": err("A query parameter is unknown or out of range."), "404": err("No such course of yours."), **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/report.csv": {"get": {
        "summary": "The report as CSV: a header row, one row per course and student.", "tags": ["attendance"], "parameters": REPORT_QUERY,
        "responses": {"200": {"description": "CSV", "content": {"text/csv": {"schema": string}}}, "400": err("A query parameter is unknown or out of range."),
                      "404": err("No such course of yours."), **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/lectures/{lecture}/audit": {
        "parameters": [path_param("lecture", "The lecture's id.")],
        "get": {"summary": "The lecture's audit trail: every decision with its frame hash, distance and liveness.", "tags": ["attendance"],
                "responses": {**ok_json({"type": "array", "items": {"type": "object"}}), "404": err("No such lecture of yours."), **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/checkin/lecture": {"get": {
        "summary": "The open lecture a room code opens for the signed-in student (what the phone shows before its camera starts).",
        "tags": ["attendance"], "parameters": [q("code", {"type": "string", "pattern": "^[0-9]{8}$"}, "The room's eight-digit code.")],
        "responses": {**ok_json(obj({"lecture": {"type": "object"}, "courseCode": string, "courseTitle": string})),
                      "400": err("An unknown query parameter."), "404": err("No open lecture of your courses has the code."),
                      "429": err("Too many wrong codes; see Retry-After."), **SIGNED_IN_ERRORS,
                      "403": err("Not a student, or the code is of a lecture of a course you are not enrolled in (the message names it).")}}},
    "/api/v1/attendance/my-attendance": {"get": {"summary": "The student's own attendance per course, with percentages, remarks and their own refused check-ins (in plain words).", "tags": ["attendance"],
                                                 "responses": {**ok_json({"type": "array", "items": {"type": "object"}}), **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/lectures/{lecture}/kiosk-device": {
        "parameters": [path_param("lecture", "The lecture's id.")],
        "post": {"summary": "Turn this browser into the lecture's kiosk (its professor, face-checked, or the admin): the session here ends and an HttpOnly "
                            "sentio_kiosk cookie (path /api/v1/attendance/kiosk, 12 h) takes its place; the device then reaches only the kiosk routes.",
                 "tags": ["attendance"],
                 "responses": {**ok_json(obj({"lecture": string, "expiresAt": integer, "page": string}), "The kiosk's token is in the cookie", "201"),
                               "404": err("No such lecture of yours."), "409": err("The lecture is confirmed."), **SIGNED_IN_ERRORS}},
        "delete": {"summary": "End every kiosk of the lecture (from another device).", "tags": ["attendance"],
                   "responses": {**ok_json(obj({"ended": integer})), "404": err("No such lecture of yours."), **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/kiosk": {"get": {
        "summary": "The kiosk device's lecture, its course, how many checked in of how many, who opened it (the sentio_kiosk cookie).",
        "tags": ["attendance"],
        "responses": {**ok_json(obj({"lecture": {"type": "object"}, "courseCode": string, "courseTitle": string, "checkedIn": integer, "expected": integer,
                                     "operatorName": string, "expiresAt": integer})), "401": err("Not a kiosk device, or its kiosk ended.")}}},
    "/api/v1/attendance/kiosk/names": {"get": {
        "summary": "Students of the kiosk's lecture not checked in yet whose name holds q (two letters or more; at most 8): the kiosk's type-ahead.",
        "tags": ["attendance"], "parameters": [q("q", {"type": "string", "maxLength": 100}, "Part of a name (fewer than two letters: nobody).")],
        "responses": {**ok_json({"type": "array", "items": obj({"id": string, "displayName": string, "hasFace": {"type": "boolean"}})}),
                      "400": err("An unknown query parameter, or q over 100 characters."), "401": err("Not a kiosk device, or its kiosk ended.")}}},
    "/api/v1/attendance/kiosk/leave": {"post": {
        "summary": "Leave the kiosk: the password of the professor who opened it and a live face proof made at this kiosk (its stream, purpose proof). "
                   "Ends the kiosk and signs the professor in here, face-checked.",
        "tags": ["attendance"], "requestBody": json_body(obj({"password": string, "proof": string}, ["password", "proof"])),
        "responses": {**ok_json(obj({"next": string})), "400": err("Malformed JSON."), "401": err("Not a kiosk device, or its kiosk ended."),
                      "403": err("Wrong password, or no fresh face proof of the professor made at this kiosk."), "413": err("Body over 64 KiB."),
                      "415": err("Not JSON."), "429": err("Too many wrong passwords; see Retry-After.")}}},
    "/api/v1/attendance/people/{id}/faces": {
        "parameters": [path_param("id", "The person's id.")],
        "get": {"summary": "How many enrolment photos, and the ids of those kept (admin, the person).", "tags": ["attendance"],
                "description": "faces: photos of the model attendance decides with (model); staleFaces: photos of another model, never compared (the person enrols again; staleKeptPhotos of them can be enrolled again by POST …/reenrol).",
                "responses": {**ok_json(obj({"faces": integer, "staleFaces": integer, "staleKeptPhotos": integer, "model": {"type": "string", "enum": ["sface", "dlib"]},
                                             "photos": {"type": "array", "items": string}})), "404": err("No such person."), **SIGNED_IN_ERRORS}},
        "post": {"summary": "Enrol a photo (admin): one face, looking straight, eyes open, at least 80 px; the photo kept only with keepPhoto=true (the person agreed).",
                 "tags": ["attendance"], "parameters": [q("keepPhoto", {"type": "boolean"}, "Keep the photo (the person agreed).")], "requestBody": IMAGE_BODY,
                 "responses": {**ok_json(obj({"faces": integer, "yaw": num, "keptPhoto": {"type": "boolean"}}), "Enrolled", "201"),
                               "400": err("A query parameter, or the body is empty."), "404": err("No such person."), "409": err("20 photos already."), "413": err("Over 16 MiB."),
                               "415": err("Not an image type."), "422": err("Not a readable image, or no usable face (the reason given)."), "429": err("Too many requests."),
                               "503": err("The work ran past its deadline or the server is full; see Retry-After."), **SIGNED_IN_ERRORS}},
        "delete": {"summary": "Delete every descriptor and photo of the person (admin, the person).", "tags": ["attendance"],
                   "responses": {"204": {"description": "Deleted."}, **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/people/{id}/reenrol": {
        "parameters": [path_param("id", "The person's id.")],
        "post": {"summary": "Enrol again, with the server's face model, the kept photos enrolled with another (admin).", "tags": ["attendance"],
                 "description": "Each kept photo is checked as a new enrolment photo; one that fails is left as it was and named in refused.",
                 "responses": {**ok_json(obj({"reenrolled": integer, "refused": {"type": "array", "items": string}, "faces": integer, "staleFaces": integer})),
                               "404": err("No such person."), "429": err("Too many requests."),
                               "503": err("The work ran past its deadline or the server is full; see Retry-After."), **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/people/{id}/faces/{photo}": {
        "parameters": [path_param("id", "The person's id."), path_param("photo", "The photo's id.")],
        "get": {"summary": "A kept enrolment photo (admin, the person).", "tags": ["attendance"],
                "responses": {"200": {"description": "The image as uploaded", "content": {t: {"schema": {"type": "string", "format": "binary"}} for t in ("image/jpeg", "image/png", "image/webp")}},
                              "404": err("No such kept photo."), **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/people/{id}/verify": {
        "parameters": [path_param("id", "The person's id.")],
        "post": {"summary": "The kiosk's 1:1 face check of a photo against the person (admin; records nothing). With course, also nobody enrolled (in any course) nearer.",
                 "tags": ["attendance"], "parameters": [q("course", string, "Apply the kiosk's whole rule (everyone with an enrolled face is the cohort); the course must exist.")], "requestBody": IMAGE_BODY,
                 "responses": {**ok_json(obj({"match": obj({"personID": string, "distance": num, "accepted": {"type": "boolean"}, "runnerUp": num}), "threshold": num})),
                               "400": err("A query parameter, or the body is empty."), "404": err("No enrolled face, or no such course."), "413": err("Over 16 MiB."), "415": err("Not an image type."),
                               "422": err("Not a readable image, or the photo cannot serve (no face, two faces, turned, too small, eyes closed)."),
                               "429": err("Too many requests."), "503": err("The work ran past its deadline or the server is full; see Retry-After."), **SIGNED_IN_ERRORS}}},
    "/api/v1/attendance/admin-handover": {"post": {
        "summary": "Hand the administrator role to someone else: the administrator's password and a fresh face proof.", "tags": ["attendance"],
        "requestBody": json_body(obj({"user": string, "password": string, "proof": string,
                                      "newRole": {"type": "string", "enum": ["professor", "student", "player"]}}, ["user", "password", "proof"])),
        "responses": {"204": {"description": "Handed over."}, "400": err("Malformed JSON, or oneself."), "404": err("No such user."),
                      "413": err("Body over 64 KiB."), "415": err("Not JSON."), "429": err("Too many failed attempts."), **SIGNED_IN_ERRORS}}},

    # The puzzle game (docs/puzzler.md, docs/puzzler-api.md): guests play with the
    # sentio_puzzler cookie that GET progress sets; the level itself is played on the WebSocket
    # /api/v1/puzzler/levels/{level}/play.
    "/api/v1/puzzler/levels": {"get": {"summary": "The seventeen levels: clue, sense, star position, neighbours (no hints: those are bought).", "tags": ["puzzler"],
                                       "responses": ok_json(obj({"levels": {"type": "array", "items": {"type": "object"}}}, ["levels"]))}},
    "/api/v1/puzzler/progress": {"get": {"summary": "The player's progress (a new guest and its cookie on first use): points, resume code, every level's state and hints bought.",
                                         "tags": ["puzzler"], "responses": {**ok_json(obj({"player": {"type": "object"}, "points": integer, "meteors": integer, "hintCost": integer,
                                                                                          "levels": {"type": "array", "items": {"type": "object"}}})),
                                                                            "429": err("Too many new players from this client.")}}},
    "/api/v1/puzzler/resume": {"post": {"summary": "Make this device the guest player of a resume code.", "tags": ["puzzler"],
                                        "requestBody": json_body(obj({"code": {"type": "string", "minLength": 1, "maxLength": 32}}, ["code"])),
                                        "responses": {**ok_json({"type": "object"}), "400": err("Malformed JSON."), "404": err("No player has that code."),
                                                      "409": err("Signed in: the account's progress is played."), "413": err("Body over 64 KiB."), "415": err("Not JSON."),
                                                      "429": err("Too many tries.")}}},
    "/api/v1/puzzler/levels/{level}/hints": {
        "parameters": [path_param("level", "The level's id.", {"type": "string", "enum": LEVELS})],
        "post": {"summary": "Buy the level's next hint for 50 points.", "tags": ["puzzler"],
                 "responses": {**ok_json(obj({"tier": integer, "text": string, "points": integer})), "429": err("Too many new players from this client."),
                               "404": err("No such level, or it is locked."), "409": err("Not enough points, or all three bought.")}}},
    "/api/v1/puzzler/levels/{level}/events": {
        "parameters": [path_param("level", "A device level's id.", {"type": "string", "enum": DEVICE_LEVELS})],
        "post": {"summary": "A device level's signals reported after the fact (the offline level, once back online); judged and stored.", "tags": ["puzzler"],
                 "requestBody": json_body(obj({"events": {"type": "array", "maxItems": 200, "items": obj({"name": string, "t": num}, ["name"])}}, ["events"])),
                 "responses": {**ok_json({"type": "object"}), "400": err("Malformed JSON, or not a device level."), "429": err("Too many new players from this client."),
                               "404": err("No such level, or it is locked."), "413": err("Too many events, or over 64 KiB."), "415": err("Not JSON.")}}},
    "/api/v1/puzzler/meteors": {"post": {"summary": "Start a meteor round.", "tags": ["puzzler"],
                                         "responses": {**ok_json(obj({"round": string, "seed": integer, "spawnSeconds": num}), "Started", "201"), "429": err("Too many new players from this client.")}}},
    "/api/v1/puzzler/meteors/{round}": {
        "parameters": [path_param("round", "The round's id.")],
        "post": {"summary": "Credit meteors caught: one point each, at most one per spawn interval since the round began.", "tags": ["puzzler"],
                 "requestBody": json_body(obj({"caught": {"type": "integer", "minimum": 0, "maximum": 100000}}, ["caught"])),
                 "responses": {**ok_json(obj({"credited": integer, "points": integer})), "400": err("Malformed JSON."), "429": err("Too many new players from this client."),
                               "404": err("No such round of yours."), "413": err("Body over 64 KiB."), "415": err("Not JSON."), "422": err("A count outside 0…100,000.")}}},
    "/api/v1/puzzler/pair": {"post": {"summary": "Open a room for a phone to play a motion or device level for this player.", "tags": ["puzzler"],
                                      "requestBody": json_body(obj({"level": {"type": "string", "enum": LEVELS}}, ["level"])),
                                      "responses": {**ok_json(obj({"code": string, "level": string, "url": string, "qr": string}), "Opened", "201"),
                                                    "400": err("Malformed JSON or no such level."), "429": err("Too many new players from this client."), "404": err("The level is locked."),
                                                    "413": err("Body over 64 KiB."), "415": err("Not JSON."), "429": err("Too many rooms.")}}},
    "/api/v1/puzzler/pairings/{code}": {
        "parameters": [path_param("code", "The room's code.")],
        "get": {"summary": "The level a paired room's phone plays.", "tags": ["puzzler"],
                "responses": {**ok_json(obj({"code": string, "level": {"type": "object"}})), "404": err("No open puzzle room with that code."), "429": err("Too many wrong codes from this client; see Retry-After.")}}},
    "/api/v1/puzzler/difficulty": {"get": {"summary": "Per level: players, solves, median seconds to solve, hints bought (admin).", "tags": ["puzzler"],
                                           "responses": {**ok_json(obj({"levels": {"type": "array", "items": {"type": "object"}}})), **SIGNED_IN_ERRORS}}},
}

# Links: what one answer names, the next request can use (the stateful phase of
# scripts/api-fuzz follows them, and they tell a reader how the calls chain).
def link(source, method, status, target, target_method, parameters=None, body=None):
    response = paths[source][method]["responses"][status]
    name = target_method.capitalize() + "".join(p.strip("{}").replace(".", "").replace("-", "").capitalize() for p in target.split("/")[3:])
    entry = {"operationRef": "#/paths/" + target.replace("~", "~0").replace("/", "~1") + "/" + target_method}
    if parameters: entry["parameters"] = parameters
    if body is not None: entry["requestBody"] = body
    response.setdefault("links", {})[name] = entry
COURSE = "/api/v1/attendance/courses/{course}"
for target, method in [(COURSE, "get"), (COURSE + "/lectures", "get"), (COURSE + "/lectures", "post"), (COURSE + "/students", "get"),
                       (COURSE + "/students", "post"), (COURSE + "/professors", "post"), (COURSE + "/attendance.csv", "get"),
                       (COURSE + "/students.csv", "post"), (COURSE + "/slots", "get"), (COURSE + "/slots", "post"), (COURSE + "/timetable", "post")]:
    link("/api/v1/attendance/courses", "post", "201", target, method, {"course": "$response.body#/id"})
# A slot's id and course lead to its holidays and its deletion.
for target, method in [(COURSE + "/slots/{slot}/exceptions", "post"), (COURSE + "/slots/{slot}", "delete")]:
    link(COURSE + "/slots", "post", "201", target, method, {"course": "$response.body#/courseID", "slot": "$response.body#/id"})
link(COURSE + "/slots/{slot}/exceptions", "post", "201", COURSE + "/slots/{slot}/exceptions/{date}", "delete",
     {"course": "$response.body#/courseID", "slot": "$response.body#/id", "date": "$response.body#/firstDate"})
LECTURE = "/api/v1/attendance/lectures/{lecture}"
for target, method in [(LECTURE, "get"), (LECTURE + "/open", "post"), (LECTURE + "/audit", "get"), (LECTURE + "/confirm", "post")]:
    link(COURSE + "/lectures", "post", "201", target, method, {"lecture": "$response.body#/id"})
link(COURSE + "/students.csv", "post", "202", "/api/v1/attendance/imports/{job}", "get", {"job": "$response.body#/id"})
for target, method in [("/api/v1/users/{id}", "get"), ("/api/v1/users/{id}", "delete"), ("/api/v1/attendance/people/{id}/faces", "get"),
                       ("/api/v1/attendance/people/{id}/faces", "post"), ("/api/v1/attendance/people/{id}/faces", "delete"),
                       ("/api/v1/attendance/people/{id}/reenrol", "post"),
                       ("/api/v1/attendance/people/{id}/verify", "post")]:
    link("/api/v1/users", "post", "201", target, method, {"id": "$response.body#/id"})
for target in ["/api/v1/rooms/{code}", "/api/v1/rooms/{code}/qr.svg"]:
    link("/api/v1/rooms", "post", "201", target, "get", {"code": "$response.body#/room/code"})
link("/api/v1/puzzler/pair", "post", "201", "/api/v1/puzzler/pairings/{code}", "get", {"code": "$response.body#/code"})
link("/api/v1/puzzler/meteors", "post", "201", "/api/v1/puzzler/meteors/{round}", "post", {"round": "$response.body#/round"})
for target, method in [("/api/v1/iv/collection/{pokemon}", "get"), ("/api/v1/iv/collection/{pokemon}", "put"), ("/api/v1/iv/collection/{pokemon}", "delete")]:
    link("/api/v1/iv/collection", "get", "200", target, method, {"pokemon": "$response.body#/0/id"})

# Who may call: an operation that can answer 401 needs the session cookie, and an unsafe one
# the CSRF token beside it (docs/server.md). Sign in with POST /api/v1/session.
for path, item in paths.items():
    for method, operation in item.items():
        signing_in = (path, method) == ("/api/v1/session", "post")  # its 401 is a wrong password
        if path.startswith("/api/v1/attendance/kiosk"):
            operation["security"] = [{"kiosk": []}]  # a kiosk device's cookie, not a session (issue 37)
        elif method != "parameters" and "401" in operation.get("responses", {}) and not signing_in:
            operation["security"] = [{"session": []} if method == "get" else {"session": [], "csrf": []}]
SECURITY_SCHEMES = {
    "session": {"type": "apiKey", "in": "cookie", "name": "sentio_session",
                "description": "The session cookie POST /api/v1/session sets (HttpOnly, SameSite=Strict)."},
    "kiosk": {"type": "apiKey", "in": "cookie", "name": "sentio_kiosk",
              "description": "A kiosk device's cookie (POST /api/v1/attendance/lectures/{lecture}/kiosk-device sets it): the lecture's check-ins only."},
    "csrf": {"type": "apiKey", "in": "header", "name": "X-CSRF-Token",
             "description": "The session's CSRF token (POST or GET /api/v1/session answers it); every POST, PUT and DELETE of a signed-in user carries it."},
}

document = {
    "openapi": "3.0.3",
    "info": {"title": "Sentio", "version": "1.0.0",
             "description": "Perception over HTTP: the CLI's commands as stills, accounts, pairing, the IV, attendance and puzzle applications. The live streams are WebSockets "
                            "(/api/v1/stream/faces, hands, pose, motion, gestures; /api/v1/rooms/{code}/events; the attendance kiosk; a puzzle level's /api/v1/puzzler/levels/{level}/play), described in docs/server.md, docs/play.md, docs/attendance.md and docs/puzzler-api.md."},
    "paths": paths,
    "components": {"schemas": schemas, "securitySchemes": SECURITY_SCHEMES},
}
# The server's integers are 64-bit (Swift's Int): a number past that is not read (400), so the
# document bounds every integer it does not bound more narrowly.
def bound_integers(node):
    if isinstance(node, dict):
        if node.get("type") == "integer":
            node.setdefault("format", "int64")
            node.setdefault("minimum", -2**63)
            node.setdefault("maximum", 2**63 - 1)
        for value in node.values():
            bound_integers(value)
    elif isinstance(node, list):
        for value in node:
            bound_integers(value)
bound_integers(document)

out = pathlib.Path(__file__).resolve().parent.parent / "Sources/SentioServer/Public/api/openapi.json"
out.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n")
print(f"wrote {out}")
