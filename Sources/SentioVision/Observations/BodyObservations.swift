/// The hands of one image or frame (`sentio hands --json`, the hands stream).
public struct HandsObservation: Codable, Equatable, Sendable {
    public var frame: Int?
    public var time: Double?
    public var width: Int
    public var height: Int
    public var hands: [ObservedHand]

    public init(frame: Int? = nil, time: Double? = nil, width: Int, height: Int, hands: [ObservedHand]) {
        (self.frame, self.time, self.width, self.height, self.hands) = (frame, time, width, height, hands)
    }
}

/// One hand: 21 joints (``HandJoint`` order), in the image and in metres, and its shape.
public struct ObservedHand: Codable, Equatable, Sendable {
    /// "Left" or "Right" as MediaPipe labels it (for a mirrored, selfie image).
    public var handedness: String
    /// Confidence of the handedness label.
    public var score: Double
    public var presence: Double
    public var landmarks: [Point3]
    public var world: [Point3]
    /// A ``HandShape`` raw value, or nil (always encoded, as null).
    public var gesture: String?

    public init(_ hand: Hand) {
        handedness = hand.handedness
        score = hand.handednessScore
        presence = hand.presence
        landmarks = hand.points.map { Point3(x: $0.x, y: $0.y, z: $0.z) }
        world = hand.world.map { Point3(x: $0.x, y: $0.y, z: $0.z) }
        gesture = HandShape(hand)?.rawValue
    }

    enum CodingKeys: String, CodingKey { case handedness, score, presence, landmarks, world, gesture }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        handedness = try c.decode(String.self, forKey: .handedness)
        score = try c.decode(Double.self, forKey: .score)
        presence = try c.decode(Double.self, forKey: .presence)
        landmarks = try c.decode([Point3].self, forKey: .landmarks)
        world = try c.decode([Point3].self, forKey: .world)
        gesture = try c.decodeIfPresent(String.self, forKey: .gesture)
    }

    // `gesture` is always present (null when no known shape): keys stay stable.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(handedness, forKey: .handedness)
        try c.encode(score, forKey: .score)
        try c.encode(presence, forKey: .presence)
        try c.encode(landmarks, forKey: .landmarks)
        try c.encode(world, forKey: .world)
        try c.encode(gesture, forKey: .gesture)
    }
}

/// The bodies of one image or frame (`sentio pose --json`, the pose stream): at most one.
public struct PosesObservation: Codable, Equatable, Sendable {
    public var frame: Int?
    public var time: Double?
    public var width: Int
    public var height: Int
    public var poses: [ObservedPose]

    public init(frame: Int? = nil, time: Double? = nil, width: Int, height: Int, poses: [ObservedPose]) {
        (self.frame, self.time, self.width, self.height, self.poses) = (frame, time, width, height, poses)
    }
}

/// One body: 33 landmarks (``BodyJoint`` order) with visibility, and in metres.
public struct ObservedPose: Codable, Equatable, Sendable {
    public var score: Double
    public var landmarks: [PoseLandmark]
    public var world: [Point3]

    public init(_ pose: Pose) {
        score = pose.score
        landmarks = pose.points.enumerated().map {
            PoseLandmark(x: $0.element.x, y: $0.element.y, z: $0.element.z, visibility: pose.visibility[$0.offset])
        }
        world = pose.world.map { Point3(x: $0.x, y: $0.y, z: $0.z) }
    }
}

/// Pinch and air writing in one frame (`sentio gestures --json`, the gestures app).
public struct HandGesturesObservation: Codable, Equatable, Sendable {
    public var frame: Int
    public var time: Double?
    /// Hands in view (0 or 1: one hand is tracked).
    public var hands: Int
    /// A pinch held for the detector's frames.
    public var pinch: Bool
    /// Index and middle fingertips together: the pen is down.
    public var pen: Bool
    /// The hand's ``HandShape`` raw value, or nil (always encoded, as null).
    public var gesture: String?
    /// Strokes written so far, each a list of points (mirrored for a selfie view unless told otherwise).
    public var trace: [[Point2]]

    public init(frame: Int, time: Double?, hands: Int, pinch: Bool, pen: Bool, gesture: String?, trace: [[Point2]]) {
        (self.frame, self.time, self.hands, self.pinch, self.pen, self.gesture, self.trace) = (frame, time, hands, pinch, pen, gesture, trace)
    }

    enum CodingKeys: String, CodingKey { case frame, time, hands, pinch, pen, gesture, trace }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        frame = try c.decode(Int.self, forKey: .frame)
        time = try c.decodeIfPresent(Double.self, forKey: .time)
        hands = try c.decode(Int.self, forKey: .hands)
        pinch = try c.decode(Bool.self, forKey: .pinch)
        pen = try c.decode(Bool.self, forKey: .pen)
        gesture = try c.decodeIfPresent(String.self, forKey: .gesture)
        trace = try c.decode([[Point2]].self, forKey: .trace)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(frame, forKey: .frame)
        try c.encodeIfPresent(time, forKey: .time)
        try c.encode(hands, forKey: .hands)
        try c.encode(pinch, forKey: .pinch)
        try c.encode(pen, forKey: .pen)
        try c.encode(gesture, forKey: .gesture)
        try c.encode(trace, forKey: .trace)
    }
}
