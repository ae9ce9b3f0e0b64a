/// Returns Apple's message for a result code (`SecCopyErrorMessageString`).
///
/// Codes of Apple's SecBase.h return the text of the header's comment; codes without a comment
/// return their name (as Apple's debug table does); any other code returns `"OSStatus <n>"`.
///
/// - Parameters:
///   - status: The result code.
///   - reserved: Pass `nil`.
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? {
    SecErrorMessages.message(for: status) as NSString
}

/// The message table behind `SecCopyErrorMessageString`.
enum SecErrorMessages {
    private static let byStatus: [OSStatus: String] = {
        var table: [OSStatus: String] = [:]
        for entry in secBaseCodes where table[entry.status] == nil {
            table[entry.status] = entry.message.isEmpty ? entry.name : entry.message
        }
        return table
    }()

    /// The message for `status`.
    static func message(for status: OSStatus) -> String {
        byStatus[status] ?? "OSStatus \(status)"
    }
}
