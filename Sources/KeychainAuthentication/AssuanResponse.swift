/// One line an Assuan server sends, other than data (`D`) lines, which carry secrets and are
/// decoded where they are read.
package enum AssuanResponse: Equatable, Sendable {
    /// `OK [text]`: the command succeeded (or, first of all, the server greets).
    case ok
    /// `ERR <code> [text]`: the command failed; `code` is a libgpg-error code.
    case error(code: UInt32, text: String)
    /// `INQUIRE <keyword> [parameters]`: the server asks the client for data.
    case inquire(String)
    /// `S <keyword> [status]`: a status line, informational.
    case status(String)
    /// `# …`: a comment.
    case comment

    /// libgpg-error's `GPG_ERR_CANCELED`: the user cancelled (pinentry sends it with its source
    /// in the top byte, as `83886179`).
    package static let cancelledCode: UInt32 = 99
    /// libgpg-error's `GPG_ERR_TIMEOUT`: the prompt timed out.
    package static let timeoutCode: UInt32 = 62

    /// Parses a line without its line feed; nil when it is not a line Assuan defines.
    package init?(line: Substring) {
        func rest(after keyword: String) -> Substring? {
            if line == keyword { return "" }
            guard line.hasPrefix(keyword + " ") else { return nil }
            return line.dropFirst(keyword.count + 1)
        }
        if rest(after: "OK") != nil {
            self = .ok
        } else if let text = rest(after: "ERR") {
            let parts = text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            guard let first = parts.first, let code = UInt32(first) else { return nil }
            self = .error(code: code, text: parts.count > 1 ? AssuanEscaping.unescaped(parts[1]) : "")
        } else if let text = rest(after: "INQUIRE") {
            self = .inquire(String(text))
        } else if let text = rest(after: "S") {
            self = .status(String(text))
        } else if line.hasPrefix("#") {
            self = .comment
        } else {
            return nil
        }
    }

    /// The libgpg-error code without its source (the low 16 bits), for an `ERR` line.
    package var errorCode: UInt32? {
        if case .error(let code, _) = self { return code & 0xFFFF }
        return nil
    }
}
