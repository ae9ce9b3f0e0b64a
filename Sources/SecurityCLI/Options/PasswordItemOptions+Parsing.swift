import KeychainCore

extension PasswordItemOptions {
    /// macOS's getopt string for each command (spec E.2), plus `-e` (accessibility) in adds.
    static func specification(_ kind: PasswordKind, _ operation: PasswordOperation) -> String {
        switch (kind, operation) {
        case (.generic, .add): return ":a:c:C:D:e:G:j:l:s:p:w:X:UAT:h"
        case (.generic, .find): return "ha:c:C:D:G:j:l:s:wg"
        case (.generic, .delete): return "ha:c:C:D:G:j:l:s:g"
        case (.internet, .add): return ":a:c:C:d:D:e:j:l:p:P:r:s:t:w:X:UAT:h"
        case (.internet, .find): return "ha:c:C:d:D:hgj:l:p:P:r:s:wt:"
        case (.internet, .delete): return "ha:c:C:d:D:hgj:l:p:P:r:s:t:"
        }
    }

    /// Parses a password command's words (after the command name).
    ///
    /// A trailing `-w` with no value in an add (or `-p` for generic passwords, its legacy alias)
    /// asks for a prompt; the prompt itself happens later, after the arguments are known to be
    /// complete.
    ///
    /// - Throws: `ToolError.usage` for `-h`, unknown options, missing values, a missing account
    ///   or service/server in an add, extra keychains in an add, malformed `-P`/`-X` values, and a
    ///   delete with no criterion; `ToolError.failed(1)` for a four-character code of the wrong length.
    static func parse(_ arguments: [String], kind: PasswordKind, operation: PasswordOperation) throws -> PasswordItemOptions {
        let parser = OptionParser(specification(kind, operation))
        let scan = parser.parse(arguments)
        var options = PasswordItemOptions()
        for element in scan.elements {
            switch element {
            case .unknown, .missingValue:
                if case .missingValue(let letter) = element, operation == .add,
                    letter == "w" || (letter == "p" && kind == .generic)
                {
                    options.password = .prompt
                    continue
                }
                throw parser.usageError(for: element)
            case .option(let letter, let value):
                try options.apply(letter, value ?? "", kind: kind, operation: operation)
            }
        }
        options.keychains = scan.operands
        try options.validate(kind: kind, operation: operation)
        return options
    }

    private mutating func apply(_ letter: Character, _ value: String, kind: PasswordKind, operation: PasswordOperation) throws {
        switch letter {
        case "a": account = value
        case "s": serviceOrServer = value
        case "l": label = value
        case "D": self.kind = value
        case "j": comment = value
        case "G": genericValue = value
        case "c": creator = try FourCharacterCode(parsing: value)
        case "C": type = try FourCharacterCode(parsing: value)
        case "d": securityDomain = value
        case "P": port = try Self.port(value)
        case "r": protocolCode = try FourCharacterCode(parsing: value)
        case "t": authenticationType = try FourCharacterCode(parsing: value)
        case "p" where kind == .internet: path = value
        case "p", "w":
            if operation == .add {
                password = .bytes(Array(value.utf8))
            } else {
                passwordOnly = true  // find's -w takes no value; getopt never gets here with one.
            }
        case "X": password = .bytes(try Self.hexBytes(value))
        case "e":
            guard let protection = Protection.named(value) else {
                throw ToolError.usage(reason: "invalid accessibility \"\(value)\" (use ak, ck, dk, aku, cku, dku or akpu)")
            }
            accessibility = protection
        case "U": update = true
        case "g": showPassword = true
        case "A", "T": break  // Access control lists do not exist here; accepted and ignored.
        default: throw ToolError.usage(reason: nil)  // -h, and anything listed but unhandled.
        }
    }

    private func validate(kind: PasswordKind, operation: PasswordOperation) throws {
        switch operation {
        case .add:
            guard account != nil, serviceOrServer != nil else { throw ToolError.usage(reason: nil) }
            guard keychains.count <= 1, keychains.first?.isEmpty != true else { throw ToolError.usage(reason: nil) }
        case .delete:
            guard hasCriteria else { throw ToolError.usage(reason: nil) }
        case .find:
            break
        }
    }

    /// A port number, 0 through 65535.
    private static func port(_ text: String) throws -> UInt16 {
        guard let port = UInt16(text) else {
            throw ToolError.usage(reason: "invalid port number \"\(text)\"")
        }
        return port
    }

    /// `-X`: password bytes as hexadecimal digits (an even number of them, either case).
    static func hexBytes(_ text: String) throws -> [UInt8] {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else {
            throw ToolError.usage(reason: "-X needs an even number of hexadecimal digits")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else {
                throw ToolError.usage(reason: "-X needs hexadecimal digits only")
            }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
