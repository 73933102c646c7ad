#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

@usableFromInline func cExp(_ x: Double) -> Double { exp(x) }
@usableFromInline func cExpf(_ x: Float) -> Float { expf(x) }
