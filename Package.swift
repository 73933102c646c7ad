// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Sentio",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "SentioImage", targets: ["SentioImage"]),
        .library(name: "SentioNeural", targets: ["SentioNeural"]),
        .library(name: "SentioVision", targets: ["SentioVision"]),
        .library(name: "SentioMotion", targets: ["SentioMotion"]),
        .executable(name: "sentio", targets: ["sentio"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // System libraries, found with pkg-config (Debian: libpng-dev, libjpeg62-turbo-dev, libwebp-dev).
        .systemLibrary(
            name: "CPNG", pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"]), .brew(["libpng"])]),
        .systemLibrary(
            name: "CJPEG", pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg62-turbo-dev"]), .brew(["jpeg-turbo"])]),
        // libwebp and its demuxer (animated files); both come in libwebp-dev.
        .systemLibrary(
            name: "CWebP", pkgConfig: "libwebp",
            providers: [.apt(["libwebp-dev"]), .brew(["webp"])]),
        // The few lines of C that libjpeg's setjmp/longjmp error handling needs; Swift cannot
        // call setjmp safely, so every libjpeg and libpng call happens behind this shim.
        .target(name: "CSentioCodecs", dependencies: ["CPNG", "CJPEG"]),
        .target(name: "SentioImage", dependencies: ["CSentioCodecs", "CWebP"]),
        // The hot loops of the neural engine: AVX2/FMA behind runtime detection, portable C
        // otherwise (see docs/neural-kernels.md).
        .target(name: "CSentioKernels"),
        .target(name: "SentioNeural", dependencies: ["SentioImage", "CSentioKernels"]),
        .target(name: "SentioVision", dependencies: ["SentioImage", "SentioNeural"]),
        // Attitude, gravity and gestures from IMU samples; stands alone.
        .target(name: "SentioMotion"),
        // Tesseract (Debian: libtesseract-dev, tesseract-ocr-eng), found with pkg-config.
        .systemLibrary(name: "CTesseract", pkgConfig: "tesseract", providers: [.apt(["libtesseract-dev"])]),
        .target(name: "SentioText", dependencies: ["CTesseract", "SentioImage"]),
        // Pokémon GO IV scanner: game data (Data/, made by scripts/make-pogo-data.py) and the calculator.
        .target(name: "IVScanner", dependencies: ["SentioImage", "SentioText"], resources: [.copy("Data")]),
        .executableTarget(
            name: "sentio",
            dependencies: [
                "SentioImage", "SentioNeural", "SentioVision", "SentioMotion", "IVScanner",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // Fixture lookup and a seeded generator, shared by the tests and the fuzzer.
        .target(name: "SentioTestSupport"),
        // Mutation fuzzing of the decoders, in a process of its own so heap counts are exact.
        .executableTarget(name: "sentio-fuzz", dependencies: ["SentioImage", "SentioNeural", "SentioVision", "CSentioCodecs", "SentioTestSupport"]),
        // Shared models, the thread pool and live sessions under load; `make test` runs it
        // under ThreadSanitizer.
        .executableTarget(name: "sentio-stress", dependencies: ["SentioNeural"]),
        .testTarget(name: "SentioImageTests", dependencies: ["SentioImage", "SentioTestSupport"], exclude: ["Data"]),
        .testTarget(name: "SentioNeuralTests", dependencies: ["SentioNeural", "SentioTestSupport"]),
        .testTarget(name: "SentioMotionTests", dependencies: ["SentioMotion", "SentioTestSupport"]),
        .testTarget(name: "IVScannerTests", dependencies: ["IVScanner", "SentioTestSupport"], exclude: ["Data"]),
        // The CLI's JSON against outputs recorded before the library was reshaped (runs `sentio`).
        .testTarget(name: "SentioCLITests", dependencies: ["sentio", "SentioTestSupport"], exclude: ["Golden"]),
        .testTarget(name: "SentioVisionTests", dependencies: ["SentioVision", "SentioImage", "SentioNeural", "SentioTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
