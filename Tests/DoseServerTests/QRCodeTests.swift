import Foundation
import Testing

@testable import DoseServer

/// The pairing QR code: the error correction against a published example, the structure a scanner looks for, and an
/// independent decoder (zbar's `zbarimg`, installed by `.ci/run`) reading every version back.
@Suite("QR code of the pairing link")
struct QRCodeTests {
    /// The 1-M "HELLO WORLD" example of the widely used QR tutorial (thonky.com): 16 data codewords, 10 EC codewords.
    @Test func reedSolomonMatchesThePublishedExample() {
        let data: [UInt8] = [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17]
        let correction = QRCode.ReedSolomon.remainder(data, divisor: QRCode.ReedSolomon.divisor(degree: 10))
        #expect(correction == [196, 35, 39, 119, 235, 215, 231, 226, 93, 23])
    }

    /// Each version's byte capacity at level M (ISO/IEC 18004 table 7), and the version chosen on both sides of it.
    @Test(arguments: [(1, 14), (2, 26), (3, 42), (4, 62), (5, 84), (6, 106), (7, 122), (8, 152), (9, 180), (10, 213)])
    func smallestVersionThatHolds(version: Int, capacity: Int) throws {
        #expect(QRCode.versions[version - 1].capacity == capacity)
        let full = try QRCode(String(repeating: "a", count: capacity))
        #expect(full.version == version && full.size == 17 + 4 * version)
        if version < 10 { #expect(try QRCode(String(repeating: "a", count: capacity + 1)).version == version + 1) }
    }

    @Test func tooLongIsRefusedWithTheLimit() {
        #expect(throws: QRCode.Failure.tooLong(bytes: 214, limit: 213)) { try QRCode(String(repeating: "a", count: 214)) }
    }

    /// Finder patterns in three corners, the two copies of the format bits agree and decode to level M, and the
    /// codeword count fills the version exactly.
    @Test(arguments: [1, 14, 27, 60, 84, 107, 150, 213])
    func structureAScannerLooksFor(length: Int) throws {
        let code = try QRCode(String(repeating: "x", count: length))
        let size = code.size
        for (left, top) in [(0, 0), (size - 7, 0), (0, size - 7)] {
            for dy in 0..<7 {
                for dx in 0..<7 {
                    let ring = max(abs(dx - 3), abs(dy - 3))
                    #expect(code[left + dx, top + dy] == (ring != 2), "finder at \(left),\(top)")
                }
            }
        }
        var first = 0
        var second = 0
        let firstPositions = (0...5).map { (8, $0) } + [(8, 7), (8, 8), (7, 8)] + (9..<15).map { (14 - $0, 8) }
        let secondPositions = (0..<8).map { (size - 1 - $0, 8) } + (8..<15).map { (8, size - 15 + $0) }
        for (index, position) in firstPositions.enumerated() where code[position.0, position.1] { first |= 1 << index }
        for (index, position) in secondPositions.enumerated() where code[position.0, position.1] { second |= 1 << index }
        #expect(first == second)
        let format = first ^ 0x5412
        #expect(format >> 13 == 0b00, "error-correction level M")
        var remainder = format >> 10
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        #expect(remainder == format & 0x3FF, "the format bits carry their BCH check")
        let layout = QRCode.versions[code.version - 1]
        let total = layout.dataCodewords + layout.ecPerBlock * layout.groups.reduce(0) { $0 + $1.count }
        #expect(QRCode.codewords(Array(String(repeating: "x", count: length).utf8), layout: layout).count == total)
        #expect(code[8, size - 8], "the dark module")
    }

    /// zbar reads back a real pairing link and a text at every version's capacity, drawn 4 pixels a module.
    @Test func anIndependentDecoderReadsEveryVersion() throws {
        let zbar = "/usr/bin/zbarimg"
        try #require(FileManager.default.isExecutableFile(atPath: zbar), "zbarimg (Debian's zbar-tools) is needed; .ci/run installs it")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("qr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~:/?#[]@!$&'()*+,;=")
        var texts = [
            "http://nightstand.local:8080/pair?code=9f2c4e1a7b3d5f608e1c2a4b6d8f0e1c",
            "https://192.168.178.23:8443/pair?code=0123456789abcdef0123456789abcdef",
        ]
        for layout in QRCode.versions {
            texts.append(String((0..<layout.capacity).map { alphabet[($0 * 7 + layout.version) % alphabet.count] }))
        }
        for (index, text) in texts.enumerated() {
            let code = try QRCode(text)
            let file = folder.appendingPathComponent("\(index).pgm")
            try Self.pgm(code, scale: 4).write(to: file)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: zbar)
            process.arguments = ["--raw", "-q", file.path]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let read = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
            #expect(read == text, "version \(code.version), \(text.utf8.count) bytes")
        }
    }

    /// The SVG path covers exactly the dark modules, each inside the 4-module quiet zone.
    @Test func svgPathDrawsTheDarkModules() throws {
        let code = try QRCode("https://example.test/pair?code=abc")
        var drawn = Set<Int>()
        let runs = code.svgPath.split(separator: "M").map { $0.split(whereSeparator: { "hvz ".contains($0) }) }
        for run in runs {
            let x = Int(run[0])!
            let y = Int(run[1])!
            let width = Int(run[2])!
            for column in x..<(x + width) { drawn.insert((y - 4) * code.size + (column - 4)) }
        }
        let dark = Set((0..<(code.size * code.size)).filter { code[$0 % code.size, $0 / code.size] })
        #expect(drawn == dark)
    }

    /// A binary greymap with the quiet zone, black on white.
    static func pgm(_ code: QRCode, scale: Int) -> Data {
        let side = (code.size + 8) * scale
        var pixels = [UInt8](repeating: 255, count: side * side)
        for y in 0..<code.size {
            for x in 0..<code.size where code[x, y] {
                for dy in 0..<scale { for dx in 0..<scale { pixels[((y + 4) * scale + dy) * side + (x + 4) * scale + dx] = 0 } }
            }
        }
        return Data("P5\n\(side) \(side)\n255\n".utf8) + Data(pixels)
    }
}
