import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// The certificate `--tls auto` makes: self-signed, P-256, for `localhost`, the machine's name and
/// its IPv4 addresses (what a phone on the same network types), valid for a year. It is kept in
/// the data folder and made again when it expires or the machine's addresses change.
enum SelfSignedCertificate {
    struct Files { var certificate: String; var key: String }

    /// The certificate and key files, made when missing, expiring or not covering `addresses`.
    static func ensure(in directory: String, addresses: [String], hostname: String) throws -> Files {
        let files = Files(certificate: directory + "/tls/certificate.pem", key: directory + "/tls/key.pem")
        if let existing = try? String(contentsOfFile: files.certificate, encoding: .utf8),
           FileManager.default.fileExists(atPath: files.key),
           let certificate = try? Certificate(pemEncoded: existing),
           certificate.notValidAfter > Date().addingTimeInterval(7 * 86400),
           covers(certificate, addresses: addresses) {
            return files
        }
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("Sentio on \(hostname)"); OrganizationName("Sentio (self-signed)") }
        var names: [GeneralName] = [.dnsName("localhost"), .dnsName(hostname)]
        for address in Set(addresses + ["127.0.0.1"]).sorted() {
            let octets = address.split(separator: ".").compactMap { UInt8($0) }
            if octets.count == 4 { names.append(.ipAddress(ASN1OctetString(contentBytes: ArraySlice(octets)))) }
        }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(365 * 86400),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(names)
            },
            issuerPrivateKey: .init(key))
        do {
            try FileManager.default.createDirectory(atPath: directory + "/tls", withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            try certificate.serializeAsPEM().pemString.write(toFile: files.certificate, atomically: true, encoding: .utf8)
            _ = FileManager.default.createFile(atPath: files.key, contents: Data(key.pemRepresentation.utf8), attributes: [.posixPermissions: 0o600])
        } catch {
            throw ServerError.tls("cannot write the certificate into \(directory)/tls: \(error.localizedDescription)")
        }
        return files
    }

    static func covers(_ certificate: Certificate, addresses: [String]) -> Bool {
        guard let san = try? certificate.extensions.subjectAlternativeNames else { return false }
        let present = Set(san.compactMap { name -> String? in
            if case .ipAddress(let octets) = name { return octets.bytes.map(String.init).joined(separator: ".") }
            return nil
        })
        return Set(addresses).isSubset(of: present)
    }

    /// NIO's server configuration for PEM files.
    static func configuration(certificate: String, key: String) throws -> TLSConfiguration {
        do {
            let chain = try NIOSSLCertificate.fromPEMFile(certificate).map { NIOSSLCertificateSource.certificate($0) }
            let privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
            var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(privateKey))
            // TLS 1.2 and 1.3 only, and in 1.2 only forward-secret AEAD suites: no TLS 1.0/1.1,
            // no CBC with SHA-1, no RSA key exchange (issue 34, finding 12). Every browser of the
            // last eight years speaks these.
            configuration.minimumTLSVersion = .tlsv12
            configuration.cipherSuiteValues = [
                .TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, .TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
                .TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, .TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
                .TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, .TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
            ]
            return configuration
        } catch {
            throw ServerError.tls("cannot read \(certificate) and \(key): \(error)")
        }
    }

    /// The machine's IPv4 addresses other than loopback (what a phone on the network reaches).
    static func localAddresses() -> [String] {
        var result: [String] = []
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else { continue }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            guard getnameinfo(address, socklen_t(MemoryLayout<sockaddr_in>.size), &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !text.hasPrefix("127.") { result.append(text) }
        }
        return result
    }
}
