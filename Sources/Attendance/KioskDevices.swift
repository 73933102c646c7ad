import SentioStore
import SQLKit

/// A browser a professor turned into a lecture's kiosk (issue 37): it holds a token that does
/// only that lecture's check-ins, not the professor's session. A student left alone with the
/// tablet can reach no page or act of the professor's; leaving the kiosk needs the operator's
/// password and a live face proof.
public struct KioskDevice: Codable, Sendable, Equatable {
    /// The SHA-256 of the device's token (the token itself is only in the device's cookie).
    public var id: String
    public var lectureID: String
    /// The professor (or administrator) who made it, the only person who may leave it.
    public var operatorID: String
    public var createdAt: Int64
    public var expiresAt: Int64

    /// The key its face proofs are recorded under (``AttendanceRegister/recordFaceProof``'s
    /// session): a proof made at the kiosk serves only to leave that kiosk.
    public var proofSession: String { "kiosk " + id }
}

extension AttendanceRegister {
    /// How long a kiosk lives when nobody ends it: a long teaching day.
    public static let kioskHours: Int64 = 12

    /// Turns a device into the kiosk of an open or scheduled `lecture`, run by `operatorID`;
    /// `tokenHash` is the SHA-256 of the token the device will hold.
    public func startKiosk(lecture id: String, operatorID: String, tokenHash: String, at now: Int64 = Clock.milliseconds()) async throws -> KioskDevice {
        try await store.transaction { db in
            guard let lecture = try await Self.lecture(db, id) else { throw AttendanceError.notFound("lecture \(id)") }
            guard lecture.state != .confirmed else { throw AttendanceError.conflict("the lecture is confirmed: its check-in is closed") }
            let device = KioskDevice(id: tokenHash, lectureID: id, operatorID: operatorID, createdAt: now, expiresAt: now + Self.kioskHours * 3_600_000)
            try await db.insert(into: "att_kiosks").columns("id", "lecture_id", "operator_id", "created_at", "expires_at")
                .values(SQLBind(device.id), SQLBind(id), SQLBind(operatorID), SQLBind(now), SQLBind(device.expiresAt)).run()
            try await Self.audit(db, AuditEntry(at: now, lectureID: id, actor: operatorID, subject: operatorID, action: "kiosk.start", outcome: "ok"))
            return device
        }
    }

    /// The live kiosk whose token has this hash: not ended, not expired.
    public func kiosk(tokenHash: String, at now: Int64 = Clock.milliseconds()) async throws -> KioskDevice? {
        try await store.read { db in
            try await db.raw("""
                SELECT * FROM att_kiosks WHERE id = \(bind: tokenHash) AND ended_at IS NULL AND expires_at > \(bind: now)
                """).first().map { row in
                KioskDevice(id: try row.decode(column: "id", as: String.self), lectureID: try row.decode(column: "lecture_id", as: String.self),
                            operatorID: try row.decode(column: "operator_id", as: String.self), createdAt: try row.decode(column: "created_at", as: Int64.self),
                            expiresAt: try row.decode(column: "expires_at", as: Int64.self))
            }
        }
    }

    /// Ends one kiosk (left by its operator); false when it had already ended.
    @discardableResult
    public func endKiosk(_ device: KioskDevice, actor: String, at now: Int64 = Clock.milliseconds()) async throws -> Bool {
        try await store.transaction { db in
            let ended = try await db.raw("UPDATE att_kiosks SET ended_at = \(bind: now) WHERE id = \(bind: device.id) AND ended_at IS NULL RETURNING id")
                .first() != nil
            if ended {
                try await Self.audit(db, AuditEntry(at: now, lectureID: device.lectureID, actor: actor, subject: device.operatorID, action: "kiosk.end", outcome: "ok"))
            }
            return ended
        }
    }

    /// Ends every live kiosk of a lecture (from the professor's own device); returns how many.
    @discardableResult
    public func endKiosks(lecture id: String, actor: String, at now: Int64 = Clock.milliseconds()) async throws -> Int {
        try await store.transaction { db in
            let n = try await db.raw("""
                UPDATE att_kiosks SET ended_at = \(bind: now) WHERE lecture_id = \(bind: id) AND ended_at IS NULL RETURNING id
                """).all().count
            if n > 0 {
                try await Self.audit(db, AuditEntry(at: now, lectureID: id, actor: actor, subject: actor, action: "kiosk.end", outcome: "ok",
                                                    detail: "\(n) kiosks"))
            }
            return n
        }
    }

    /// Students of the lecture's course not checked in yet whose name or user name holds
    /// `text` (case-insensitive), at most `limit`: the kiosk's type-ahead. A kiosk never lists
    /// the whole class to whoever stands in front of it; with fewer than two letters it lists
    /// nobody.
    public func missingStudents(lecture id: String, matching text: String, limit: Int = 8) async throws -> [Person] {
        let needle = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard needle.count >= 2 else { return [] }
        let roll = try await roll(lecture: id)
        return Array(roll.missing.filter { $0.displayName.lowercased().contains(needle) || $0.username.lowercased().contains(needle) }.prefix(limit))
    }
}
