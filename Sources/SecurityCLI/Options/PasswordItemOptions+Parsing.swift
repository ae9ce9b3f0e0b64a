import KeychainCore

extension PasswordItemOptions {
    /// macOS's getopt string for each command (from `security`'s source), plus `-e`
    /// (accessibility) and `-S` (synchronizable) in adds, and the options whose values are passwords: `-w`, `-X` and
    /// (generic passwords) `-p` in adds.
    static func specification(_ kind: PasswordKind, _ operation: PasswordOperation) -> OptionParser {
        switch (kind, operation) {
        case (.generic, .add):
            return OptionParser(":a:c:C:D:e:G:j:l:s:p:w:X:UAST:h", secrets: ["w", "p", "X"], optionalValues: ["A": AccessControlExpression.looksLikeOne])
        case (.generic, .find): return OptionParser("ha:c:C:D:G:j:l:s:wg")
        case (.generic, .delete): return OptionParser("ha:c:C:D:G:j:l:s:g")
        case (.internet, .add):
            return OptionParser(":a:c:C:d:D:e:j:l:p:P:r:s:t:w:X:UAST:h", secrets: ["w", "X"], optionalValues: ["A": AccessControlExpression.looksLikeOne])
        case (.internet, .find): return OptionParser("ha:c:C:d:D:hgj:l:p:P:r:s:wt:")
        case (.internet, .delete): return OptionParser("ha:c:C:d:D:hgj:l:p:P:r:s:t:")
        }
    }

    /// Parses a password command's words (after the command name) given as text.
    static func parse(_ arguments: [String], kind: PasswordKind, operation: PasswordOperation) throws -> PasswordItemOptions {
        try parse(specification(kind, operation).parse(arguments), kind: kind, operation: operation)
    }

    /// Reads the options of a password command's words scanned with `specification(kind, operation)`.
    ///
    /// A trailing `-w` with no value in an add (or `-p` for generic passwords, its legacy alias)
    /// asks for a prompt; the prompt itself happens later, after the arguments are known to be
    /// complete.
    ///
    /// - Throws: `ToolError.usage` for `-h`, unknown options, missing values, values that are not
    ///   UTF-8 (except passwords, which are bytes), a missing account or service/server in an
    ///   add, extra keychains in an add, malformed `-P`/`-X` values, and a delete with no
    ///   criterion; `ToolError.failed(1)` for a four-character code of the wrong length.
    static func parse(_ scan: OptionParser.Result, kind: PasswordKind, operation: PasswordOperation) throws -> PasswordItemOptions {
        var options = PasswordItemOptions()
        for element in scan.elements {
            switch element {
            case .option(let letter, let value):
                try options.apply(letter, value ?? "", kind: kind, operation: operation)
            case .secret(let letter, let value):
                options.password = .bytes(letter == "X" ? try hexBytes(value) : value)
            case .missingValue(let letter) where operation == .add && (letter == "w" || (letter == "p" && kind == .generic)):
                options.password = .prompt
            default:
                throw specification(kind, operation).usageError(for: element)
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
        case "w": passwordOnly = true  // find's -w takes no value (an add's -w is a secret).
        case "e":
            guard let protection = Protection.named(value) else {
                throw ToolError.usage(reason: "invalid accessibility \"\(value)\" (use ak, ck, dk, aku, cku, dku or akpu)")
            }
            accessibility = protection
        case "U": update = true
        case "S" where operation == .add: synchronizable = true
        case "g": showPassword = true
        case "A" where !value.isEmpty: accessControl = try AccessControlExpression.flags(value)
        case "A", "T": break  // macOS's application lists do not exist here; accepted and ignored.
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
    static func hexBytes(_ digits: [UInt8]) throws -> [UInt8] {
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
