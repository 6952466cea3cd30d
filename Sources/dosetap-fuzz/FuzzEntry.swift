import DoseFuzzing
import Foundation

#if FUZZING
    import CLibFuzzer

    // Built by scripts/fuzz.sh with `-sanitize=fuzzer -D FUZZING`. SwiftPM makes an executable's `main` an alias of
    // `dosetap_fuzz_main`, so that is where libFuzzer's driver starts. The target is chosen by DOSETAP_FUZZ_TARGET, so one
    // binary serves every target with its own corpus.
    nonisolated(unsafe) private var target = FuzzTarget.requestBody

    @_cdecl("LLVMFuzzerTestOneInput")
    public func testOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
        guard let start else {
            target.run(Data())
            return 0
        }
        target.run(Data(bytes: start, count: count))
        return 0
    }

    @_cdecl("dosetap_fuzz_main")
    public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
        let name = ProcessInfo.processInfo.environment["DOSETAP_FUZZ_TARGET"] ?? ""
        guard let chosen = FuzzTarget(rawValue: name) else {
            FileHandle.standardError.write(
                Data("DOSETAP_FUZZ_TARGET must be one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))\n".utf8))
            return 2
        }
        target = chosen
        _ = FuzzFixture.validBundle
        var count = argc
        var arguments = argv
        return LLVMFuzzerRunDriver(&count, &arguments, testOneInput)
    }
#else
    /// Without libFuzzer: replays files through a target (`dosetap-fuzz TARGET FILE…`), the way a crash is reproduced, or
    /// writes the generated seeds (`dosetap-fuzz seed Fuzz/corpus`).
    @main
    struct FuzzReplay {
        static func main() {
            let arguments = Array(CommandLine.arguments.dropFirst())
            if arguments.count == 2, arguments[0] == "seed" {
                do { try FuzzSeeds.write(to: URL(fileURLWithPath: arguments[1])) } catch {
                    print("cannot write seeds: \(error)")
                    exit(73)
                }
                return
            }
            guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
                print(
                    "usage: dosetap-fuzz TARGET FILE…  |  dosetap-fuzz seed FOLDER   targets: "
                        + "\(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))"
                )
                exit(64)
            }
            for path in arguments.dropFirst() {
                guard let data = FileManager.default.contents(atPath: path) else {
                    print("cannot read \(path)")
                    exit(66)
                }
                target.run(data)
                print("ok \(path)")
            }
        }
    }
#endif
