import Foundation
import Security

/// `memory-probe`: reads a secret with `SecItemCopyMatching` and reports how many copies of it
/// the process's writable memory holds while the result is alive and after it was released.
///
/// The secret was added by another process, so no copy comes from the add. The probe is given
/// the secret masked (each byte XOR 0xA5, in hex) and never unmasks it into memory: it compares
/// masked bytes, so the only plaintext copies are the keychain's. It prints
/// `held <n>` (expected at least 1: the scan works) and `released <n>` (expected 0), and for
/// each copy found after release the mapping it lies in.
struct MemoryProbe {
    static let mask: UInt8 = 0xA5

    let account: String
    let masked: [UInt8]

    init(_ arguments: HelperArguments) throws {
        account = try arguments.string("account")
        let hex = Array(try arguments.string("masked").utf8)
        masked = stride(from: 0, to: hex.count - 1, by: 2).compactMap {
            UInt8(String(decoding: hex[$0...$0 + 1], as: UTF8.self), radix: 16)
        }
    }

    func run() throws {
        let scanner = try MemoryScanner(masked: masked, mask: Self.mask)
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "memory.probe",
            kSecAttrAccount as String: account, kSecReturnData as String: true,
        ]
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        guard status == errSecSuccess, let data = result as? NSData, data.length == masked.count else {
            throw HelperError("SecItemCopyMatching returned \(status)")
        }
        print("held \(scanner.scan().count)")
        result = nil
        let remaining = scanner.scan()
        print("released \(remaining.count)")
        for region in remaining { print("copy in \(region)") }
    }
}

/// Scans the process's writable mappings (heap, stacks, anonymous memory, data sections) for a
/// byte pattern given masked, through `/proc/self/mem`, with a scratch buffer of its own that it
/// skips and wipes.
final class MemoryScanner {
    private let masked: [UInt8]
    private let mask: UInt8
    private let scratch: UnsafeMutableRawBufferPointer
    private let chunk = 1 << 20

    init(masked: [UInt8], mask: UInt8) throws {
        guard masked.count >= 16 else { throw HelperError("the pattern is too short to scan for") }
        self.masked = masked
        self.mask = mask
        let pointer = mmap(nil, chunk + masked.count, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let pointer, pointer != MAP_FAILED else { throw HelperError("mmap failed") }
        scratch = UnsafeMutableRawBufferPointer(start: pointer, count: chunk + masked.count)
    }

    deinit { munmap(scratch.baseAddress, scratch.count) }

    /// The mappings (as `/proc/self/maps` names them) holding a copy, one entry per copy.
    func scan() -> [String] {
        var found: [String] = []
        guard let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8) else { return ["no maps"] }
        let memory = open("/proc/self/mem", O_RDONLY | O_CLOEXEC)
        guard memory >= 0 else { return ["no /proc/self/mem"] }
        defer { close(memory) }
        let scratchStart = UInt(bitPattern: scratch.baseAddress)
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, fields[1].hasPrefix("rw") else { continue }
            let bounds = fields[0].split(separator: "-").compactMap { UInt($0, radix: 16) }
            guard bounds.count == 2 else { continue }
            if line.hasSuffix("[vvar]") || line.hasSuffix("[vsyscall]") { continue }
            // The scratch buffer may have been merged into a larger anonymous mapping: skip it.
            let scratchEnd = scratchStart + UInt(scratch.count)
            var ranges = [(bounds[0], bounds[1])]
            if scratchStart < bounds[1] && scratchEnd > bounds[0] {
                ranges = [(bounds[0], scratchStart), (scratchEnd, bounds[1])].filter { $0.0 < $0.1 }
            }
            for (start, end) in ranges {
                found += scan(memory, from: start, to: end).map { _ in String(line) }
            }
        }
        memset(scratch.baseAddress!, 0, scratch.count)
        return found
    }

    /// Copies in `[start, end)`: chunks overlap by the pattern's length so none is missed.
    private func scan(_ memory: Int32, from start: UInt, to end: UInt) -> [UInt] {
        var hits: [UInt] = []
        var offset = start
        let first = masked[0] ^ mask
        while offset < end {
            let wanted = Int(min(UInt(chunk + masked.count), end - offset))
            let read = pread(memory, scratch.baseAddress, wanted, off_t(Int64(bitPattern: UInt64(offset))))
            if read <= 0 { break }
            var position = 0
            while position + masked.count <= read {
                guard let found = memchr(scratch.baseAddress! + position, Int32(first), read - masked.count + 1 - position)
                else { break }
                let index = scratch.baseAddress!.distance(to: found)
                if matches(at: index) { hits.append(offset + UInt(index)) }
                position = index + 1
            }
            if read < wanted { break }
            offset += UInt(chunk)
        }
        return Array(Set(hits))
    }

    private func matches(at index: Int) -> Bool {
        for position in 1..<masked.count where scratch[index + position] ^ mask != masked[position] {
            return false
        }
        return true
    }
}
