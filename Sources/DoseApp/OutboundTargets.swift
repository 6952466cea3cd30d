import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where DoseTap may send a request a paired device chose (a push endpoint, the escalation contact): https to a
/// public address only, so a device cannot make the server reach this machine, its network or a cloud metadata
/// service. Names are resolved and checked again right before each connection (`checkBeforeConnecting`), so a name
/// that later resolves to an internal address (DNS rebinding) is refused then. The operator's own `serve --webhook`
/// and `--on-reminder` stay theirs to choose.
public struct OutboundTargets: Sendable {
    /// Loopback targets (http or https to 127.0.0.0/8, ::1, localhost) are allowed: `DOSETAP_ALLOW_LOOPBACK_TARGETS=1`,
    /// for a push service or webhook under test on this machine. Never for private or link-local addresses.
    public var allowLoopback: Bool

    public init(allowLoopback: Bool = false) { self.allowLoopback = allowLoopback }

    /// What is allowed, in words, for error messages.
    public var allowed: String {
        allowLoopback
            ? "an https URL on a public address (or http/https on 127.0.0.1, ::1 or localhost, allowed by DOSETAP_ALLOW_LOOPBACK_TARGETS=1)"
            : "an https URL on a public address (not this machine, a private network or a link-local address)"
    }

    /// Why `url` may not be a target, or nil when it may (a name is checked again when connecting).
    public func refusal(of url: String) -> String? {
        guard let (scheme, host) = Self.schemeAndHost(url) else { return "it is not a URL with a host" }
        if Self.isLoopback(host: host) {
            return allowLoopback ? (["http", "https"].contains(scheme) ? nil : "it is not http or https") : "it points at this machine"
        }
        guard scheme == "https" else { return "it is not https" }
        if let address = Self.address(host) { return address.isPublic ? nil : "\(host) is not a public address" }
        if host.hasSuffix(".local") || host.hasSuffix(".internal") || host.hasSuffix(".home.arpa") || !host.contains(".") {
            return "\(host) is not a public name"
        }
        return nil
    }

    /// A URL's scheme and host, lower case, the host without an IPv6 literal's brackets or a final dot; nil unless it
    /// has both and no credentials.
    static func schemeAndHost(_ url: String) -> (scheme: String, host: String)? {
        guard let components = URLComponents(string: url), let host = components.host?.lowercased(), !host.isEmpty,
            let scheme = components.scheme?.lowercased(), components.user == nil, components.password == nil
        else { return nil }
        // A name with its root's dot (`localhost.`) is the same name.
        var bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if bare.hasSuffix("."), bare.count > 1 { bare.removeLast() }
        return (scheme, bare)
    }

    /// Whether a host (without brackets) is this machine: `localhost` and its subdomains, 127.0.0.0/8, ::1, and
    /// 127.0.0.0/8 written as an IPv4-mapped IPv6 address.
    public static func isLoopback(host: String) -> Bool {
        let host = host.lowercased()
        return host == "localhost" || host.hasSuffix(".localhost") || address(host)?.isLoopback == true
    }

    /// What a check right before connecting found: a reason to refuse, or the address to connect to for a name.
    public enum Connection: Sendable, Equatable {
        case refused(String)
        /// Connect as usual (a literal address, or a loopback name the flag allows).
        case direct
        /// Connect to `address` for `host`: the name as checked, so a second lookup cannot answer otherwise.
        case pinned(host: String, address: String)
    }

    /// Resolves the URL's host now and refuses it unless every address is allowed; a literal address is checked as is.
    /// A name is pinned to the address that was checked (DNS rebinding cannot slip another in between).
    public func checkBeforeConnecting(_ url: String) -> Connection {
        if let refusal = refusal(of: url) { return .refused(refusal) }
        guard let host = Self.schemeAndHost(url)?.host else { return .refused("it is not a URL with a host") }
        if Self.address(host) != nil || Self.isLoopback(host: host) { return .direct }
        let addresses = Self.resolve(host)
        guard let first = addresses.first else { return .refused("\(host) could not be resolved") }
        for address in addresses where !(address.isPublic || (allowLoopback && address.isLoopback)) {
            return .refused("\(host) resolves to an address that is not public")
        }
        return .pinned(host: host, address: first.text)
    }

    /// An IPv4 or IPv6 address in network order.
    struct Address: Equatable {
        var bytes: [UInt8]

        /// The address as text (for connecting to it).
        var text: String {
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            let family = bytes.count == 4 ? AF_INET : AF_INET6
            _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }

        var isLoopback: Bool {
            bytes.count == 4 ? bytes[0] == 127 : bytes == [UInt8](repeating: 0, count: 15) + [1] || mappedIPv4?.isLoopback == true
        }

        /// The IPv4 address inside an IPv4-mapped IPv6 address (::ffff:a.b.c.d).
        var mappedIPv4: Address? {
            bytes.count == 16 && bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF
                ? Address(bytes: Array(bytes[12...])) : nil
        }

        /// Not loopback, private (RFC 1918, ULA), shared (CGNAT), link-local, multicast, unspecified, reserved or
        /// documentation space.
        var isPublic: Bool {
            if let mapped = mappedIPv4 { return mapped.isPublic }
            if bytes.count == 4 {
                let (a, b) = (bytes[0], bytes[1])
                return
                    !(a == 0 || a == 10 || a == 127 || a >= 224 || (a == 100 && (64...127).contains(b)) || (a == 169 && b == 254)
                    || (a == 172 && (16...31).contains(b)) || (a == 192 && b == 168) || (a == 192 && b == 0 && bytes[2] == 0)
                    || (a == 192 && b == 0 && bytes[2] == 2) || (a == 198 && (18...19).contains(b)) || (a == 198 && b == 51 && bytes[2] == 100)
                    || (a == 203 && b == 0 && bytes[2] == 113))
            }
            let first = bytes[0]
            // Global unicast is 2000::/3; within it, documentation 2001:db8::/32 and the NAT64/6to4/Teredo ranges that
            // embed other addresses are refused too.
            guard first & 0xE0 == 0x20 else { return false }
            if bytes[0...3] == [0x20, 0x01, 0x0D, 0xB8] || bytes[0...1] == [0x20, 0x02] || bytes[0...3] == [0x20, 0x01, 0x00, 0x00] {
                return false
            }
            return true
        }
    }

    /// The address a literal host names, or nil for a name. IPv4 is read as the resolver reads it (`inet_aton`: `127.1`,
    /// octal `0177.0.0.1`, `127.000.000.001`, hexadecimal), so no spelling of an address passes for a name.
    static func address(_ host: String) -> Address? {
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 || inet_aton(host, &v4) != 0 { return Address(bytes: withUnsafeBytes(of: &v4) { Array($0) }) }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 { return Address(bytes: withUnsafeBytes(of: &v6) { Array($0) }) }
        return nil
    }

    /// Every address the name resolves to now.
    static func resolve(_ host: String) -> [Address] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var addresses: [Address] = []
        var node = list
        while let entry = node?.pointee {
            if entry.ai_family == AF_INET, let raw = entry.ai_addr {
                var address = raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                addresses.append(Address(bytes: withUnsafeBytes(of: &address) { Array($0) }))
            } else if entry.ai_family == AF_INET6, let raw = entry.ai_addr {
                var address = raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                addresses.append(Address(bytes: withUnsafeBytes(of: &address) { Array($0) }))
            }
            node = entry.ai_next
        }
        return addresses
    }
}
