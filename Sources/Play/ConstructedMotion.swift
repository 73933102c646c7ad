import Foundation

/// Browser samples made to a recipe, for the arcade's tests (the browser test builds the same
/// ones in Python, tests/browser/motion_traces.py): a phone lying face up, sampled at 60 Hz,
/// every value rounded to 0.1 as Chromium rounds it.
public enum ConstructedMotion {
    public static let rate = 60.0

    /// `count` flicks along the phone's top edge (+y): each a half-sine push of `peakG` over
    /// 0.15 s, a half-sine stop of 0.6 × `peakG` over 0.15 s, then 1.5 s at rest; 1 s at rest
    /// before the first.
    public static func flicks(count: Int, peakG: Double, start: Double = 1000) -> [BrowserMotionSample] {
        var userY: [Double] = Array(repeating: 0, count: Int(rate))
        for _ in 0..<count {
            let n = Int(0.15 * rate)
            userY += (0..<n).map { peakG * sin(.pi * (Double($0) + 0.5) / Double(n)) }
            userY += (0..<n).map { -0.6 * peakG * sin(.pi * (Double($0) + 0.5) / Double(n)) }
            userY += Array(repeating: 0, count: Int(1.5 * rate))
        }
        return userY.enumerated().map { i, y in sample(i, start: start, userY: y) }
    }

    /// `seconds` lying still, with a reading that wobbles by ±0.04 m/s² before rounding.
    public static func rest(seconds: Double, start: Double = 1000) -> [BrowserMotionSample] {
        (0..<Int(seconds * rate)).map { sample($0, start: start, userY: 0) }
    }

    static func sample(_ i: Int, start: Double, userY: Double) -> BrowserMotionSample {
        let g = 9.80665, wobble = 0.04 * sin(Double(i) * 1.7)
        func r(_ v: Double) -> Double { (v * 10).rounded() / 10 }
        return BrowserMotionSample(t: start + Double(i) * 1000 / rate,
                                   acceleration: (r(wobble), r(userY * g - wobble), r(g + wobble)),
                                   rotationRate: (0, 0, 0))
    }
}
