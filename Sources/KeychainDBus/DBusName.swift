/// The specification's rules for the names a message carries: object paths, interface and error
/// names, member names and bus names. Each is at most 255 bytes of ASCII (paths have no length
/// limit of their own), so checking them never needs to look at more than the bytes given.
package enum DBusName {
    /// `/`, or `/`-separated non-empty elements of `[A-Za-z0-9_]`, without a trailing `/`.
    package static func isValidObjectPath(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return false }
        if bytes.count == 1 { return true }
        guard bytes.last != UInt8(ascii: "/") else { return false }
        var previousWasSlash = false
        for byte in bytes {
            if byte == UInt8(ascii: "/") {
                if previousWasSlash { return false }
                previousWasSlash = true
            } else {
                guard isWordByte(byte) else { return false }
                previousWasSlash = false
            }
        }
        return true
    }

    /// Interfaces and error names: at least two `.`-separated elements of `[A-Za-z0-9_]`, none
    /// empty or starting with a digit, at most 255 bytes.
    package static func isValidInterface(_ text: String) -> Bool {
        dotted(text, minimumElements: 2) { element, _ in
            element.allSatisfy(isWordByte) && !isDigit(element[0])
        }
    }

    /// Members: one element of `[A-Za-z0-9_]`, not starting with a digit, at most 255 bytes.
    package static func isValidMember(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return !bytes.isEmpty && bytes.count <= 255 && bytes.allSatisfy(isWordByte) && !isDigit(bytes[0])
    }

    /// Bus names: a unique name (`:` then at least two elements of `[A-Za-z0-9_-]`) or a
    /// well-known name (at least two elements of `[A-Za-z0-9_-]`, none starting with a digit),
    /// at most 255 bytes.
    package static func isValidBusName(_ text: String) -> Bool {
        if text.hasPrefix(":") {
            return dotted(String(text.dropFirst()), minimumElements: 2, limit: 254) { element, _ in
                element.allSatisfy { isWordByte($0) || $0 == UInt8(ascii: "-") }
            }
        }
        return dotted(text, minimumElements: 2) { element, _ in
            element.allSatisfy { isWordByte($0) || $0 == UInt8(ascii: "-") } && !isDigit(element[0])
        }
    }

    private static func dotted(
        _ text: String, minimumElements: Int, limit: Int = 255, _ elementIsValid: ([UInt8], Int) -> Bool
    ) -> Bool {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= limit else { return false }
        let elements = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard elements.count >= minimumElements else { return false }
        for (index, element) in elements.enumerated() {
            guard !element.isEmpty, elementIsValid(Array(element), index) else { return false }
        }
        return true
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || isDigit(byte) || byte == UInt8(ascii: "_")
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
