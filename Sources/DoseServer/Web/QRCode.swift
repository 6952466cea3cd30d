/// A QR code (ISO/IEC 18004, model 2) of a short text: byte mode, error-correction level M, versions 1–10, so up to
/// 213 bytes — a pairing link is about 80. None of the packages this project can depend on encodes QR codes, and a
/// system library would add an install step to `swift run dosetap`, so the encoder is here; `zbarimg` (an independent
/// decoder) reads what it draws in the tests.
public struct QRCode: Sendable {
    /// Modules per side (21 for version 1, +4 per version).
    public let size: Int
    public let version: Int
    /// Row-major, true where a module is dark.
    private(set) var modules: [Bool]

    /// Why a text cannot be drawn.
    public enum Failure: Error, Equatable {
        case tooLong(bytes: Int, limit: Int)
    }

    /// Whether the module at column `x`, row `y` is dark.
    public subscript(x: Int, y: Int) -> Bool { modules[y * size + x] }

    /// The smallest code that holds `text` as UTF-8.
    public init(_ text: String) throws(Failure) {
        let bytes = Array(text.utf8)
        guard let version = Self.versions.first(where: { $0.capacity >= bytes.count })?.version else {
            throw .tooLong(bytes: bytes.count, limit: Self.versions.last!.capacity)
        }
        self.version = version
        size = 17 + 4 * version
        modules = Array(repeating: false, count: size * size)
        var canvas = Canvas(size: size)
        canvas.drawFunctionPatterns(version: version)
        canvas.drawData(Self.codewords(bytes, layout: Self.versions[version - 1]))
        modules = canvas.bestMasked()
    }

    // MARK: Codewords

    /// The error-correction blocks of one version at level M.
    struct Layout {
        let version: Int
        let ecPerBlock: Int
        /// (number of blocks, data codewords in each), the shorter blocks first.
        let groups: [(count: Int, data: Int)]

        var dataCodewords: Int { groups.reduce(0) { $0 + $1.count * $1.data } }
        /// The byte count takes 8 bits up to version 9, 16 from version 10.
        var countBits: Int { version < 10 ? 8 : 16 }
        /// The most bytes it holds after the 4-bit mode and the count.
        var capacity: Int { (dataCodewords * 8 - 4 - countBits) / 8 }
    }

    /// Level M, versions 1–10 (ISO/IEC 18004 table 9).
    static let versions: [Layout] = [
        (10, [(1, 16)]), (16, [(1, 28)]), (26, [(1, 44)]), (18, [(2, 32)]), (24, [(2, 43)]),
        (16, [(4, 27)]), (18, [(4, 31)]), (22, [(2, 38), (2, 39)]), (22, [(3, 36), (2, 37)]), (26, [(4, 43), (1, 44)]),
    ].enumerated().map { Layout(version: $0.offset + 1, ecPerBlock: $0.element.0, groups: $0.element.1) }

    /// The byte-mode bit stream, padded, split into blocks, each followed by its Reed–Solomon codewords, interleaved.
    static func codewords(_ bytes: [UInt8], layout: Layout) -> [UInt8] {
        var bits = BitBuffer()
        bits.append(0b0100, count: 4)
        bits.append(bytes.count, count: layout.countBits)
        for byte in bytes { bits.append(Int(byte), count: 8) }
        let capacityBits = layout.dataCodewords * 8
        bits.append(0, count: min(4, capacityBits - bits.count))
        bits.append(0, count: (8 - bits.count % 8) % 8)
        var data = bits.bytes
        for pad in [UInt8](repeating: 0, count: layout.dataCodewords - data.count).indices { data.append(pad % 2 == 0 ? 0xEC : 0x11) }

        var blocks: [[UInt8]] = []
        var start = 0
        for group in layout.groups {
            for _ in 0..<group.count {
                blocks.append(Array(data[start..<start + group.data]))
                start += group.data
            }
        }
        let divisor = ReedSolomon.divisor(degree: layout.ecPerBlock)
        let corrections = blocks.map { ReedSolomon.remainder($0, divisor: divisor) }
        var result: [UInt8] = []
        for index in 0..<(blocks.map(\.count).max() ?? 0) { for block in blocks where index < block.count { result.append(block[index]) } }
        for index in 0..<layout.ecPerBlock { for block in corrections { result.append(block[index]) } }
        return result
    }

    struct BitBuffer {
        private(set) var bits: [Bool] = []
        var count: Int { bits.count }
        mutating func append(_ value: Int, count: Int) {
            for shift in stride(from: count - 1, through: 0, by: -1) { bits.append((value >> shift) & 1 == 1) }
        }
        var bytes: [UInt8] {
            stride(from: 0, to: bits.count, by: 8).map { start in
                bits[start..<start + 8].reduce(UInt8(0)) { $0 << 1 | ($1 ? 1 : 0) }
            }
        }
    }

    /// Reed–Solomon over GF(2^8) with the polynomial x^8 + x^4 + x^3 + x^2 + 1, as QR codes use it.
    enum ReedSolomon {
        static func multiply(_ x: UInt8, _ y: UInt8) -> UInt8 {
            var product = 0
            for shift in stride(from: 7, through: 0, by: -1) {
                product = (product << 1) ^ ((product >> 7) * 0x11D)
                product ^= Int((y >> UInt8(shift)) & 1) * Int(x)
            }
            return UInt8(product)
        }

        /// The generator polynomial (x − α^0)…(x − α^(degree−1)) without its leading 1, highest power first.
        static func divisor(degree: Int) -> [UInt8] {
            var result = [UInt8](repeating: 0, count: degree)
            result[degree - 1] = 1
            var root: UInt8 = 1
            for _ in 0..<degree {
                for index in 0..<degree {
                    result[index] = multiply(result[index], root)
                    if index + 1 < degree { result[index] ^= result[index + 1] }
                }
                root = multiply(root, 0x02)
            }
            return result
        }

        static func remainder(_ data: [UInt8], divisor: [UInt8]) -> [UInt8] {
            var result = [UInt8](repeating: 0, count: divisor.count)
            for byte in data {
                let factor = byte ^ result.removeFirst()
                result.append(0)
                for index in result.indices { result[index] ^= multiply(divisor[index], factor) }
            }
            return result
        }
    }

    // MARK: Drawing

    /// The grid while it is drawn: which modules are dark, and which belong to fixed patterns that data and masks skip.
    struct Canvas {
        let size: Int
        var dark: [Bool]
        var reserved: [Bool]

        init(size: Int) {
            self.size = size
            dark = Array(repeating: false, count: size * size)
            reserved = dark
        }

        mutating func set(_ x: Int, _ y: Int, _ isDark: Bool) {
            dark[y * size + x] = isDark
            reserved[y * size + x] = true
        }

        mutating func drawFunctionPatterns(version: Int) {
            for index in 0..<size {
                set(6, index, index % 2 == 0)
                set(index, 6, index % 2 == 0)
            }
            for (x, y) in [(3, 3), (size - 4, 3), (3, size - 4)] {
                for dy in -4...4 {
                    for dx in -4...4 where (0..<size).contains(x + dx) && (0..<size).contains(y + dy) {
                        let distance = max(abs(dx), abs(dy))
                        set(x + dx, y + dy, distance != 2 && distance != 4)
                    }
                }
            }
            let centres = Self.alignmentCentres(version: version)
            for (i, x) in centres.enumerated() {
                for (j, y) in centres.enumerated() {
                    let last = centres.count - 1
                    if (i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0) { continue }  // the finders' corners
                    for dy in -2...2 { for dx in -2...2 { set(x + dx, y + dy, max(abs(dx), abs(dy)) != 1) } }
                }
            }
            drawFormat(mask: 0)  // reserves the format areas; the chosen mask redraws them
            if version >= 7 {
                var remainder = version
                for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
                let bits = version << 12 | remainder
                for index in 0..<18 {
                    let isDark = (bits >> index) & 1 == 1
                    let a = size - 11 + index % 3
                    let b = index / 3
                    set(a, b, isDark)
                    set(b, a, isDark)
                }
            }
        }

        /// Alignment pattern centres per axis: 6, then evenly spaced to size − 7 (ISO/IEC 18004 annex E, versions 1–10).
        static func alignmentCentres(version: Int) -> [Int] {
            guard version > 1 else { return [] }
            let last = 17 + 4 * version - 7
            guard version >= 7 else { return [6, last] }
            return [6, (6 + last) / 2, last]
        }

        /// The 15 format bits (level M, the mask) in both copies, and the module that is always dark.
        mutating func drawFormat(mask: Int) {
            let data = 0b00 << 3 | mask
            var remainder = data
            for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
            let bits = (data << 10 | remainder) ^ 0x5412
            func bit(_ index: Int) -> Bool { (bits >> index) & 1 == 1 }
            for index in 0...5 { set(8, index, bit(index)) }
            set(8, 7, bit(6))
            set(8, 8, bit(7))
            set(7, 8, bit(8))
            for index in 9..<15 { set(14 - index, 8, bit(index)) }
            for index in 0..<8 { set(size - 1 - index, 8, bit(index)) }
            for index in 8..<15 { set(8, size - 15 + index, bit(index)) }
            set(8, size - 8, true)
        }

        /// Places the codewords in the two-column zigzag from the bottom right, skipping the fixed patterns.
        mutating func drawData(_ codewords: [UInt8]) {
            var index = 0
            var right = size - 1
            while right >= 1 {
                if right == 6 { right = 5 }  // the vertical timing pattern
                for step in 0..<size {
                    for column in 0..<2 {
                        let x = right - column
                        let upward = (right + 1) & 2 == 0
                        let y = upward ? size - 1 - step : step
                        guard !reserved[y * size + x], index < codewords.count * 8 else { continue }
                        dark[y * size + x] = (codewords[index >> 3] >> (7 - UInt8(index & 7))) & 1 == 1
                        index += 1
                    }
                }
                right -= 2
            }
        }

        static func masks(_ mask: Int, _ x: Int, _ y: Int) -> Bool {
            switch mask {
            case 0: (x + y) % 2 == 0
            case 1: y % 2 == 0
            case 2: x % 3 == 0
            case 3: (x + y) % 3 == 0
            case 4: (x / 3 + y / 2) % 2 == 0
            case 5: x * y % 2 + x * y % 3 == 0
            case 6: (x * y % 2 + x * y % 3) % 2 == 0
            default: ((x + y) % 2 + x * y % 3) % 2 == 0
            }
        }

        func applying(mask: Int) -> Canvas {
            var copy = self
            for y in 0..<size {
                for x in 0..<size where !reserved[y * size + x] && Self.masks(mask, x, y) { copy.dark[y * size + x].toggle() }
            }
            copy.drawFormat(mask: mask)
            return copy
        }

        /// The modules under the mask with the lowest penalty (ISO/IEC 18004 §7.8.3).
        func bestMasked() -> [Bool] {
            (0..<8).map { applying(mask: $0) }.min { $0.penalty < $1.penalty }!.dark
        }

        /// A finder pattern's 1:1:3:1:1 run with four light modules on one side, which a scanner could mistake for one.
        static let finderLike: [[Bool]] = [
            [true, false, true, true, true, false, true, false, false, false, false],
            [false, false, false, false, true, false, true, true, true, false, true],
        ]

        var penalty: Int {
            var total = 0
            func line(_ get: (Int) -> Bool) {
                var run = 1
                for index in 1..<size {
                    if get(index) == get(index - 1) {
                        run += 1
                    } else {
                        if run >= 5 { total += run - 2 }
                        run = 1
                    }
                }
                if run >= 5 { total += run - 2 }
                for start in 0...(size - 11) {
                    for pattern in Self.finderLike where (0..<11).allSatisfy({ get(start + $0) == pattern[$0] }) { total += 40 }
                }
            }
            for row in 0..<size { line { dark[row * size + $0] } }
            for column in 0..<size { line { dark[$0 * size + column] } }
            for y in 0..<(size - 1) {
                for x in 0..<(size - 1) {
                    let colour = dark[y * size + x]
                    if colour == dark[y * size + x + 1], colour == dark[(y + 1) * size + x], colour == dark[(y + 1) * size + x + 1] { total += 3 }
                }
            }
            let darkCount = dark.count(where: { $0 })
            let cells = size * size
            total += ((abs(darkCount * 20 - cells * 10) + cells - 1) / cells - 1) * 10
            return total
        }
    }

    // MARK: Output

    /// An SVG path of the dark modules, one `h` run per stretch of a row, offset by a 4-module quiet zone; the view
    /// box is `0 0 (size + 8) (size + 8)`.
    public var svgPath: String {
        var parts: [String] = []
        for y in 0..<size {
            var x = 0
            while x < size {
                guard self[x, y] else {
                    x += 1
                    continue
                }
                let start = x
                while x < size, self[x, y] { x += 1 }
                parts.append("M\(start + 4) \(y + 4)h\(x - start)v1h-\(x - start)z")
            }
        }
        return parts.joined()
    }

    /// The code for a terminal: two rows per line in half blocks, black on white whatever the terminal's colours.
    public var terminalText: String {
        let span = -4..<(size + 4)
        func isDark(_ x: Int, _ y: Int) -> Bool { (0..<size).contains(x) && (0..<size).contains(y) && self[x, y] }
        var lines: [String] = []
        for y in stride(from: -4, to: size + 4, by: 2) {
            let row = span.map { x -> String in
                switch (isDark(x, y), isDark(x, y + 1)) {
                case (true, true): "█"
                case (true, false): "▀"
                case (false, true): "▄"
                case (false, false): " "
                }
            }.joined()
            lines.append("\u{1B}[30;47m" + row + "\u{1B}[0m")
        }
        return lines.joined(separator: "\n")
    }
}
