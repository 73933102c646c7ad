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
        .library(name: "SentioAudio", targets: ["SentioAudio"]),
        .executable(name: "sentio", targets: ["sentio"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // The server and its store only (never the toolkit's library targets): see docs/server.md.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/vapor/sql-kit", from: "3.36.0"),
        .package(url: "https://github.com/vapor/sqlite-kit", from: "4.5.2"),
        .package(url: "https://github.com/vapor/postgres-kit", from: "2.17.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/vapor/multipart-kit", from: "4.7.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
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
        // PocketSphinx 5prealpha for keyword spotting (Debian: libpocketsphinx-dev, and the model
        // in pocketsphinx-en-us), found with pkg-config.
        .systemLibrary(
            name: "CPocketSphinx", pkgConfig: "pocketsphinx",
            providers: [.apt(["libpocketsphinx-dev", "pocketsphinx-en-us"])]),
        // Hearing: PCM from WAV files and streams, resampling, loudness, keyword spotting. See docs/hearing.md.
        .target(name: "SentioAudio", dependencies: ["CPocketSphinx"]),
        // Tesseract (Debian: libtesseract-dev, tesseract-ocr-eng), found with pkg-config.
        .systemLibrary(name: "CTesseract", pkgConfig: "tesseract", providers: [.apt(["libtesseract-dev"])]),
        .target(name: "SentioText", dependencies: ["CTesseract", "SentioImage"]),
        // Pokémon GO IV scanner: game data (Data/, made by scripts/make-pogo-data.py) and the calculator.
        .target(name: "IVScanner", dependencies: ["SentioImage", "SentioText"], resources: [.copy("Data")]),
        // Persistence: SQLite embedded by default, PostgreSQL when servers share a database; one
        // SQL path over both (sql-kit), versioned migrations. See docs/store.md.
        .target(
            name: "SentioStore",
            dependencies: [
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),   // already built for PostgresNIO's SCRAM
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        // The attendance application's domain: courses, lectures, check-ins, faces, liveness (no
        // HTTP). See docs/attendance.md.
        .target(
            name: "Attendance",
            dependencies: [
                "SentioStore",
                .product(name: "SQLKit", package: "sql-kit"),
            ]),
        // The puzzle game's domain: levels, their judges over Sentio's senses, the star map,
        // hints and meteors, progress (its own tables). See docs/puzzler.md.
        .target(
            name: "Puzzler",
            dependencies: [
                "SentioImage", "SentioNeural", "SentioVision", "SentioMotion", "SentioAudio", "SentioStore",
                .product(name: "SQLKit", package: "sql-kit"),
            ]),
        // The IV application's domain: entries, evaluation, the player's collection (its own
        // tables), Poke Genie's CSV. See docs/iv-app.md.
        .target(
            name: "IVCollection",
            dependencies: [
                "IVScanner", "SentioStore",
                .product(name: "SQLKit", package: "sql-kit"),
            ]),
        // QR codes for the terminal and the pairing page (Debian: libqrencode-dev).
        .systemLibrary(
            name: "CQRencode", pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"]), .brew(["qrencode"])]),
        // The web platform: HTTP and WebSocket routes over the library's sessions, accounts, pages.
        .target(
            name: "SentioServer",
            dependencies: [
                "SentioImage", "SentioNeural", "SentioVision", "SentioMotion", "SentioText", "IVScanner", "IVCollection", "Attendance", "Play", "Puzzler", "SentioStore", "CQRencode",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            resources: [.copy("Public")]),
        // The gestures and motion arcade (issue #26): domain only, no HTTP — the browser's motion
        // samples normalised, the games' rules.
        .target(name: "Play", dependencies: ["SentioMotion"]),
        .executableTarget(
            name: "sentio",
            dependencies: [
                "SentioImage", "SentioNeural", "SentioVision", "SentioMotion", "SentioAudio", "IVScanner", "Attendance", "Puzzler", "SentioServer", "SentioStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Fixture lookup and a seeded generator, shared by the tests and the fuzzer.
        .target(name: "SentioTestSupport", dependencies: ["SentioNeural"]),
        // A fresh database of each kind for the store's and the applications' tests.
        .target(
            name: "SentioStoreTestSupport",
            dependencies: [
                "SentioStore", "SentioTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Mutation fuzzing of the decoders, in a process of its own so heap counts are exact.
        .executableTarget(name: "sentio-fuzz", dependencies: ["SentioImage", "SentioNeural", "SentioVision", "CSentioCodecs", "SentioTestSupport"]),
        // Shared models, the thread pool and live sessions under load; `make test` runs it
        // under ThreadSanitizer.
        .executableTarget(name: "sentio-stress", dependencies: ["SentioNeural"]),
        .testTarget(name: "SentioImageTests", dependencies: ["SentioImage", "SentioTestSupport"], exclude: ["Data"]),
        .testTarget(name: "SentioNeuralTests", dependencies: ["SentioNeural", "SentioTestSupport"]),
        .testTarget(name: "SentioMotionTests", dependencies: ["SentioMotion", "SentioTestSupport"]),
        .testTarget(name: "SentioAudioTests", dependencies: ["SentioAudio", "SentioTestSupport"]),
        .testTarget(name: "IVScannerTests", dependencies: ["IVScanner", "SentioText", "SentioTestSupport"], exclude: ["Data"]),
        // The CLI's JSON against outputs recorded before the library was reshaped (runs `sentio`).
        .testTarget(name: "SentioCLITests", dependencies: ["sentio", "SentioTestSupport"], exclude: ["Golden"]),
        .testTarget(
            name: "SentioStoreTests",
            dependencies: [
                "SentioStore", "SentioTestSupport", "SentioStoreTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "SentioServerTests",
            dependencies: [
                "SentioServer", "SentioStore", "SentioTestSupport", "Attendance",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWSTesting", package: "hummingbird-websocket"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SQLKit", package: "sql-kit"),
                "SentioImage", "SentioNeural", "SentioVision",
            ]),
        .testTarget(
            name: "AttendanceTests",
            dependencies: [
                "Attendance", "SentioVision", "SentioImage", "SentioNeural", "SentioStore", "SentioStoreTestSupport", "SentioTestSupport",
                .product(name: "SQLKit", package: "sql-kit"),
            ]),
        .testTarget(
            name: "IVCollectionTests",
            dependencies: [
                "IVCollection", "IVScanner", "SentioStore", "SentioStoreTestSupport", "SentioTestSupport",
                .product(name: "SQLKit", package: "sql-kit"),
            ]),
        .testTarget(
            name: "PuzzlerTests",
            dependencies: [
                "Puzzler", "SentioVision", "SentioImage", "SentioNeural", "SentioAudio", "SentioMotion", "SentioStore", "SentioStoreTestSupport", "SentioTestSupport",
            ]),
        .testTarget(name: "PlayTests", dependencies: ["Play", "SentioMotion", "SentioTestSupport"]),
        .testTarget(name: "SentioVisionTests", dependencies: ["SentioVision", "SentioImage", "SentioNeural", "SentioTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
