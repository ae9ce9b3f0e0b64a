/// A keychain as the helper's `verify` mode (or a crash writer's state file) reports it.
struct KeychainState: Equatable {
    /// The status of the first SecItem call (0: the keychain opened).
    var openStatus: Int32 = -1
    /// `PRAGMA integrity_check`'s answer.
    var integrity = ""
    /// Rows in the items table.
    var rows = -1
    /// Items that decrypted: account → label.
    var items: [String: String] = [:]
    /// Accounts whose secret did not match their label.
    var torn: [String] = []
    /// Accounts listed more than once.
    var duplicates: [String] = []

    /// Parses a dump; throws unless it is complete.
    init(parsing text: String) throws {
        var decrypted = -1
        var ended = false
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ").map(String.init)
            switch fields.first {
            case "open": openStatus = Int32(fields[1]) ?? -1
            case "integrity": integrity = fields.dropFirst().joined(separator: " ")
            case "rows": rows = Int(fields[1]) ?? -1
            case "decrypted": decrypted = Int(fields[1]) ?? -1
            case "end": ended = true
            case "item" where fields.count == 4:
                if items[fields[1]] != nil { duplicates.append(fields[1]) }
                items[fields[1]] = fields[2]
                if fields[3] != "ok" { torn.append(fields[1]) }
            default: throw StateError("unexpected line in a keychain dump: \(line)")
            }
        }
        guard ended, decrypted == items.count + duplicates.count else {
            throw StateError("incomplete keychain dump:\n\(text)")
        }
    }

    /// Why the keychain is not sound: it did not open, failed the integrity check, holds a row
    /// that does not decrypt, a torn item or a duplicate; nil when it is sound.
    var unsoundness: String? {
        if openStatus != 0 { return "the keychain did not open (status \(openStatus))" }
        if integrity != "ok" { return "PRAGMA integrity_check: \(integrity)" }
        if rows != items.count + duplicates.count {
            return "\(rows) rows, of which \(items.count + duplicates.count) decrypt"
        }
        if !torn.isEmpty { return "torn items: \(torn)" }
        if !duplicates.isEmpty { return "duplicate items: \(duplicates)" }
        return nil
    }
}

struct StateError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
