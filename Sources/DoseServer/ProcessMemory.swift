#if canImport(Glibc)
    import Glibc
#endif

/// The server's memory as glibc's allocator keeps it. Each of the request threads would otherwise get an allocator
/// arena of its own, and a few heavy requests (ten years of insights, an export) left hundreds of megabytes in arenas
/// that were never given back: six heavy clients of one person held the server at 784 MB (745 MB afterwards); with one
/// arena, 175 MB at the peak, with the same work done and the same latency for everyone else. `mallopt` and `malloc_trim` are not in Swift's Glibc module, so they are looked up by name (a null handle is glibc's
/// `RTLD_DEFAULT`: the process's own symbols); elsewhere
/// (another C library, Apple platforms) both do nothing.
enum ProcessMemory {
    #if canImport(Glibc)
        private typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
        private typealias MallocTrim = @convention(c) (Int) -> Int32
        /// glibc's `M_ARENA_MAX` (malloc.h).
        private static let arenaMaximum: Int32 = -8
    #endif

    /// Arenas for the whole process: one. The server's threads mostly wait on the database, so they seldom contend for
    /// it (scripts/heavy-clients.sh and scripts/load-benchmark.sh measure both).
    static let arenas: Int32 = 1

    #if canImport(Glibc)
        /// glibc's `mallopt` and `malloc_trim`, looked up once; nil where the C library has none.
        private static let mallOpt = dlsym(nil, "mallopt").map { unsafeBitCast($0, to: MallOpt.self) }
        private static let mallocTrim = dlsym(nil, "malloc_trim").map { unsafeBitCast($0, to: MallocTrim.self) }
    #endif

    /// Caps the allocator's arenas; called once, before the server's threads start.
    static func limitArenas() {
        #if canImport(Glibc)
            _ = mallOpt?(arenaMaximum, arenas)
        #endif
    }

    /// Gives the memory heavy work freed back to the system (called as each heavy request ends).
    static func giveBack() {
        #if canImport(Glibc)
            _ = mallocTrim?(0)
        #endif
    }
}
