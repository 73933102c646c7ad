/// Reads dlib's serialization format (dlib/serialize.h), checking every length against the
/// bytes left, so a truncated or damaged file gives a typed error naming the offset.
///
/// The format, as dlib writes it:
/// - integers: a control byte (bit 7 = negative, low 4 bits = how many bytes follow), then the
///   magnitude little-endian in that many bytes;
/// - floating point: two integers, a 64-bit mantissa and a 16-bit exponent
///   (value = mantissa · 2^exponent; exponents 32000–32002 mark ±infinity and NaN);
/// - `bool`: one ASCII byte, `'1'` or `'0'`;
/// - strings: an integer length, then the bytes;
/// - `std::vector`: an integer count, then the elements;
/// - dnn tensors: version 2, four dimensions (samples, k, rows, columns), then 32-bit
///   little-endian IEEE floats — written raw because they are the bulk of a net's file.
package struct DlibReader {
    package let bytes: UnsafeRawBufferPointer
    package private(set) var offset = 0
    /// What is being read, for error messages ("layer 12 (con_)").
    package var context = ""

    package init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    package var atEnd: Bool { offset >= bytes.count }

    package func fail(_ what: String) -> ModelError {
        .malformed("dlib file at byte \(offset)\(context.isEmpty ? "" : " in \(context)"): \(what)")
    }

    /// One raw byte (dlib's `char` and `uint8_t`).
    package mutating func byte() throws -> UInt8 {
        guard offset < bytes.count else { throw fail("unexpected end of file") }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// An integer of any of dlib's integral types (the control byte says its length).
    package mutating func integer() throws -> Int64 {
        let control = try byte()
        let size = Int(control & 0x0F)
        guard size >= 1, size <= 8, control & 0x70 == 0 else { throw fail("bad integer control byte 0x\(String(control, radix: 16))") }
        guard offset + size <= bytes.count else { throw fail("unexpected end of file in an integer") }
        var magnitude: UInt64 = 0
        for i in stride(from: size - 1, through: 0, by: -1) {
            magnitude = magnitude << 8 | UInt64(bytes[offset + i])
        }
        offset += size
        guard magnitude <= UInt64(Int64.max) else { throw fail("integer out of range") }
        return control & 0x80 != 0 ? -Int64(magnitude) : Int64(magnitude)
    }

    /// An integer that must lie in `range` (sizes, counts, versions).
    package mutating func integer(in range: ClosedRange<Int>, _ what: String) throws -> Int {
        let value = try integer()
        guard value >= Int64(range.lowerBound), value <= Int64(range.upperBound) else {
            throw fail("\(what) is \(value), outside \(range.lowerBound)...\(range.upperBound)")
        }
        return Int(value)
    }

    /// A `float` or `double` in dlib's portable mantissa/exponent form.
    package mutating func floatingPoint() throws -> Double {
        let start = offset
        guard offset < bytes.count else { throw fail("unexpected end of file") }
        guard bytes[offset] & 0x70 == 0 else {
            offset = start
            throw fail("floating point number in dlib's old text format (not supported)")
        }
        let mantissa = try integer()
        let exponent = try integer()
        switch exponent {
        case 32000: return .infinity
        case 32001: return -.infinity
        case 32002: return .nan
        case -2000 ... 2000: return Double(mantissa) * pow2(Int(exponent))
        default: throw fail("floating point exponent \(exponent) out of range")
        }
    }

    private func pow2(_ e: Int) -> Double {
        // Split so neither factor overflows before the product is formed.
        let half = e / 2
        return Double(sign: .plus, exponent: half, significand: 1) * Double(sign: .plus, exponent: e - half, significand: 1)
    }

    package mutating func bool() throws -> Bool {
        switch try byte() {
        case UInt8(ascii: "1"): return true
        case UInt8(ascii: "0"): return false
        case let b: offset -= 1; throw fail("bool byte \(b) is neither '0' nor '1'")
        }
    }

    package mutating func string(maxLength: Int = 4096) throws -> String {
        let length = try integer(in: 0 ... maxLength, "string length")
        guard offset + length <= bytes.count else { throw fail("unexpected end of file in a string of \(length) bytes") }
        defer { offset += length }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset ..< offset + length]), as: UTF8.self)
    }

    /// Reads a string and checks it is one of `expected` (a layer's type-and-version name).
    package mutating func expectString(_ expected: Set<String>) throws -> String {
        let start = offset
        let s = try string(maxLength: 256)
        guard expected.contains(s) else {
            offset = start
            throw fail("found '\(s)' where \(expected.sorted().map { "'\($0)'" }.joined(separator: " or ")) was expected")
        }
        return s
    }

    /// A dnn `resizable_tensor`: its four dimensions and values (at most `maxElements`).
    package mutating func tensor(maxElements: Int = 1 << 26) throws -> (shape: [Int], values: [Float]) {
        let version = try integer()
        guard version == 2 else { throw fail("tensor version \(version), expected 2") }
        var shape: [Int] = []
        var count = 1
        for name in ["samples", "k", "rows", "columns"] {
            let d = try integer(in: 0 ... maxElements, "tensor \(name)")
            shape.append(d)
            count = count.multipliedReportingOverflow(by: d).overflow ? Int.max : count * d
        }
        guard count <= maxElements else { throw fail("tensor of \(shape) is too large") }
        guard offset + 4 * count <= bytes.count else { throw fail("unexpected end of file in a tensor of \(shape)") }
        var values = [Float](repeating: 0, count: count)
        values.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset ..< offset + 4 * count])) }
        #if _endian(big)
        for i in values.indices { values[i] = Float(bitPattern: UInt32(littleEndian: values[i].bitPattern)) }
        #endif
        offset += 4 * count
        return (shape, values)
    }

    /// A dnn `alias_tensor` (a view's dimensions: version 1 and four sizes).
    package mutating func aliasTensor() throws -> [Int] {
        let version = try integer()
        guard version == 1 else { throw fail("alias_tensor version \(version), expected 1") }
        return try (0 ..< 4).map { _ in try integer(in: 0 ... (1 << 26), "alias_tensor size") }
    }

    /// A dlib `matrix<float|double>`: rows and columns (dlib writes them negated since 2015;
    /// older files have them positive) then the elements row by row.
    package mutating func matrix(maxElements: Int = 1 << 24) throws -> (rows: Int, columns: Int, values: [Float]) {
        let r = try integer(in: -maxElements ... maxElements, "matrix rows")
        let c = try integer(in: -maxElements ... maxElements, "matrix columns")
        let rows = abs(r), columns = abs(c)
        guard rows * columns <= maxElements else { throw fail("matrix of \(rows)×\(columns) is too large") }
        var values = [Float]()
        values.reserveCapacity(rows * columns)
        for _ in 0 ..< rows * columns { values.append(Float(try floatingPoint())) }
        return (rows, columns, values)
    }

    /// The element count of a `std::vector` (at most `max`).
    package mutating func count(max: Int, _ what: String) throws -> Int {
        try integer(in: 0 ... max, "\(what) count")
    }
}
