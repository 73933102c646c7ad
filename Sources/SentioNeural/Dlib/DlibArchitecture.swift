/// The layer structure of a dlib network, bottom (input) to top, as its C++ type spells it.
///
/// A dlib `.dat` net cannot be read without its type: tag and skip layers leave only a version
/// number in the file, and which tag an `add_prev` reads is a template argument. dlib itself
/// deserializes into a declared type; Sentio does the same with these descriptions, and every
/// layer's kind, version and geometry in the file is checked against them.
public struct DlibArchitecture: Sendable, Equatable {
    public enum Layer: Sendable, Equatable {
        case con, affine, relu, maxPool, avgPool, fc
        /// `add_prevN`: the current output plus that of the nearest `tagN` below.
        case addPrev(Int)
        /// `tagN`: marks the current output.
        case tag(Int)
        /// `skipN`: continues from the output of the nearest `tagN` below.
        case skip(Int)

        var isMarker: Bool {
            switch self {
            case .tag, .skip: true
            default: false
            }
        }
    }

    /// What the loss layer is called in the file (without its version suffix).
    public var loss: String
    /// The input layer's name in the file.
    public var input: String
    /// Layers from the input up.
    public var layers: [Layer]
    /// N of the input's `pyramid_down<N>` (image-pyramid inputs only; the file does not say).
    public var pyramidDownsampling: Int?

    /// dlib's face-recognition ResNet (`dlib_face_recognition_resnet_model_v1.dat`,
    /// dnn_face_recognition_ex.cpp): a 29-convolution ResNet on a 150×150 chip, average pooled
    /// and projected to 128 numbers by `fc_no_bias`, trained with `loss_metric`.
    public static let faceRecognitionResNet: DlibArchitecture = {
        // block<N, stride>: con(stride) affine relu con affine.
        let block: [Layer] = [.con, .affine, .relu, .con, .affine]
        // ares: relu<add_prev1<block<tag1<x>>>>.
        let ares: [Layer] = [.tag(1)] + block + [.addPrev(1), .relu]
        // ares_down: relu<add_prev2<avg_pool<2,2,2,2,skip1<tag2<block<stride 2, tag1<x>>>>>>>.
        let aresDown: [Layer] = [.tag(1)] + block + [.tag(2), .skip(1), .avgPool, .addPrev(2), .relu]
        var layers: [Layer] = [.con, .affine, .relu, .maxPool]
        layers += Array(repeating: ares, count: 3).flatMap { $0 }                 // level 4: 32 filters
        layers += aresDown + Array(repeating: ares, count: 3).flatMap { $0 }      // level 3: 64
        layers += aresDown + Array(repeating: ares, count: 2).flatMap { $0 }      // level 2: 128
        layers += aresDown + Array(repeating: ares, count: 2).flatMap { $0 }      // level 1: 256
        layers += aresDown                                                        // level 0: 256
        layers += [.avgPool, .fc]
        return DlibArchitecture(loss: "loss_metric", input: "input_rgb_image_sized", layers: layers)
    }()

    /// dlib's CNN face detector (`mmod_human_face_detector.dat`, dnn_mmod_face_detection_ex.cpp):
    /// three strided 5×5 convolutions (×8 downsampling), three 5×5 convolutions of 45 filters and
    /// a 9×9 convolution to one score per position, over a tiled image pyramid, trained with
    /// the max-margin object-detection loss (`loss_mmod`).
    public static let mmodFaceDetector: DlibArchitecture = {
        let downsampler: [Layer] = Array(repeating: [Layer.con, .affine, .relu], count: 3).flatMap { $0 }
        let rcon5: [Layer] = Array(repeating: [Layer.con, .affine, .relu], count: 3).flatMap { $0 }
        return DlibArchitecture(loss: "loss_mmod", input: "input_rgb_image_pyramid", layers: downsampler + rcon5 + [.con],
                                 pyramidDownsampling: 6)
    }()

    /// The architectures Sentio knows, recognised by their loss layer.
    public static let known: [DlibArchitecture] = [faceRecognitionResNet, mmodFaceDetector]
}
