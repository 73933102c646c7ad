import SentioImage

/// The image-to-tensor stage: a rotated region of the image resampled to the model's input
/// size and scaled to a float range, as MediaPipe's ImageToTensorCalculator does on the CPU.
public enum ImageToTensor {
    /// How values map: pixel p ∈ 0…255 becomes p · (max − min) / 255 + min.
    public struct Range: Sendable, Hashable {
        public var min: Float
        public var max: Float
        public static let zeroToOne = Range(min: 0, max: 1)
        public static let minusOneToOne = Range(min: -1, max: 1)
    }

    /// The region `rect` (pixels) resampled to `width`×`height`, as NHWC RGB floats.
    ///
    /// MediaPipe maps the region's corners onto the tensor's with OpenCV, whose pixel centres
    /// sit on integer coordinates; sampling follows that convention (a half-pixel shift from a
    /// corner-exact map) so that the tensors — and the detections — match MediaPipe's.
    public static func tensor(from image: Image, rect: RotatedRect, width: Int, height: Int,
                              range: Range, border: BorderMode, flipHorizontally: Bool = false) throws -> [Float] {
        var corners = rect.transform(from: Size(width: width, height: height))
        if flipHorizontally {
            // Mirror the tensor: output column x shows what column W − x would have.
            corners = corners.concatenating(after: AffineTransform(a: -1, b: 0, c: 0, d: 1, tx: Double(width), ty: 0))
        }
        let openCV = AffineTransform.translation(0.5, 0.5).concatenating(after: corners).concatenating(after: .translation(-0.5, -0.5))
        let rgb = image.format == .rgb8 ? image : image.converted(to: .rgb8)
        let warped = try rgb.warped(openCV, size: Size(width: width, height: height), border: border)
        let scale = (range.max - range.min) / 255
        return warped.withUnsafeBytes { bytes in
            [Float](unsafeUninitializedCapacity: width * height * 3) { out, count in
                for i in 0 ..< width * height * 3 { out[i] = Float(bytes[i]) * scale + range.min }
                count = width * height * 3
            }
        }
    }

    /// The region covering the whole image, widened to `aspect` (width / height) so the
    /// picture keeps its proportions inside the tensor (MediaPipe's keep_aspect_ratio).
    public static func letterboxRect(imageWidth: Int, imageHeight: Int, aspect: Double) -> NormalizedRect {
        var rect = NormalizedRect.full
        let w = Double(imageWidth), h = Double(imageHeight)
        if w / h > aspect { rect.height = w / aspect / h } else { rect.width = h * aspect / w }
        return rect
    }
}
