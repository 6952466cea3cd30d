import Foundation

/// The names and addresses this machine is reached by on the home network, for a server certificate's default names.
public enum MachineAddresses {
    /// The IPv4 addresses of the machine's interfaces that are up, loopback excluded.
    public static func lan() -> [String] {
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0, let first else { return [] }
        defer { freeifaddrs(first) }
        var addresses: [String] = []
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            let flags = Int32(entry.pointee.ifa_flags)
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == UInt8(AF_INET),
                flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0
            else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                var bytes = inet.pointee.sin_addr
                _ = inet_ntop(AF_INET, &bytes, &text, socklen_t(INET_ADDRSTRLEN))
            }
            addresses.append(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return Array(Set(addresses)).sorted()
    }

    /// The default names of a server certificate: the host name (and its `.local` form, which phones resolve by
    /// mDNS), `localhost`, `127.0.0.1`, and the LAN addresses.
    public static func defaultNames(hostName: String) -> [String] {
        var names = [hostName]
        if !hostName.contains(".") && !hostName.isEmpty { names.append(hostName + ".local") }
        return names + ["localhost", "127.0.0.1"] + lan()
    }
}
