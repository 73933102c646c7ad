/// A face's box as fractions of the image (x, y the top-left corner), as `sentio face` prints it.
public struct FractionBox: Codable, Equatable, Sendable {
    public var x: Double, y: Double, width: Double, height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }

    /// dlib's pixel rectangle as fractions of a `width`×`height` image.
    public init(_ r: DlibRectangle, width: Int, height: Int) {
        let w = Double(width), h = Double(height)
        self.init(x: Double(r.left) / w, y: Double(r.top) / h, width: Double(r.width) / w, height: Double(r.height) / h)
    }
}

/// The faces of a photo with their 128-number descriptors (`sentio face embed --json`,
/// `POST /api/v1/faces/embed`).
public struct EmbeddedFacesObservation: Codable, Equatable, Sendable {
    public struct Face: Codable, Equatable, Sendable {
        public var box: FractionBox
        /// The shape predictor's 5 points as [x, y] fractions of the image.
        public var landmarks5: [[Double]]
        public var descriptor: [Float]
    }

    public var faces: [Face]

    public init(faces: [Face]) { self.faces = faces }

    /// The recognizer's faces in a `width`×`height` photo.
    public init(_ recognized: [RecognizedFace], width: Int, height: Int) {
        let w = Double(width), h = Double(height)
        faces = recognized.map { f in
            Face(box: FractionBox(f.box, width: width, height: height),
                 landmarks5: f.landmarks5.map { [Double($0.x) / w, Double($0.y) / h] }, descriptor: f.descriptor.values)
        }
    }

    /// SFace's faces in a `width`×`height` photo: the detector's box, the five alignment points
    /// (eye centres, nose tip, mouth corners) in landmarks5, the unit-length descriptor.
    public init(sface recognized: [SFaceRecognizer.Recognized], width: Int, height: Int) {
        let w = Double(width), h = Double(height)
        faces = recognized.map { f in
            let b = f.face.detection.box
            return Face(box: FractionBox(x: b.x, y: b.y, width: b.width, height: b.height),
                        landmarks5: f.points.map { [Double($0.x) / w, Double($0.y) / h] }, descriptor: f.descriptor.values)
        }
    }
}

/// Two faces compared (`sentio face compare --json`, `POST /api/v1/faces/compare`).
public struct FaceComparison: Codable, Equatable, Sendable {
    /// Euclidean distance between the two descriptors.
    public var distance: Double
    /// Whether the distance is below the threshold (dlib's 0.6 by default).
    public var same: Bool

    public init(distance: Double, same: Bool) {
        self.distance = distance
        self.same = same
    }
}
