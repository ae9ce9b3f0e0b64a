/// A keychain file or directory that is not private to the calling user, and how to make it so.
///
/// The keychain uses its directory only when the calling user (the effective uid) owns it and
/// neither group nor others have any permission on it, and each file in it (and each file it
/// writes) only when, in addition, it is a regular file rather than a symbolic link.
public struct UnsafeFile: Equatable, Sendable {
    /// What is wrong with the file.
    public enum Problem: Equatable, Sendable {
        /// It belongs to `owner`, not to the calling user `caller`.
        case ownedByAnotherUser(owner: UInt32, caller: UInt32)
        /// Its permission bits (`mode`) give its group or others some access.
        case openToOthers(mode: UInt32)
        /// It is a symbolic link where the file itself must be.
        case symbolicLink
        /// It is neither a regular file nor, for the keychain directory, a directory.
        case wrongType
    }

    /// The file's path.
    public let path: String
    /// What the file is to the keychain ("keybag", "device key (device.key)", …).
    public let role: String
    /// Whether the file is the keychain's directory.
    public let isDirectory: Bool
    /// What is wrong with it.
    public let problem: Problem

    /// Describes `problem` with the file at `path`, whose role is `role`.
    public init(path: String, role: String, isDirectory: Bool, problem: Problem) {
        self.path = path
        self.role = role
        self.isDirectory = isDirectory
        self.problem = problem
    }

    /// The problem in words, naming the role but not the path: "the keybag is accessible to
    /// group or others (mode 0644)".
    public var summary: String {
        switch problem {
        case .ownedByAnotherUser(let owner, let caller):
            return "the \(role) belongs to uid \(owner), not to the calling user (uid \(caller))"
        case .openToOthers(let mode):
            return "the \(role) is accessible to group or others (mode \(Self.octal(mode)))"
        case .symbolicLink:
            return "the \(role) is a symbolic link"
        case .wrongType:
            return "the \(role) is not a \(isDirectory ? "directory" : "regular file")"
        }
    }

    /// What makes the file private, with its path as a shell word: `chmod 600 '<path>'`. For a
    /// directory, chmod 700 only where it holds just keychains; a shared (sticky) directory such
    /// as `/tmp` is never to be closed, so the advice is a directory of the keychain's own.
    public var fix: String {
        let quoted = Self.shellQuoted(path)
        switch problem {
        case .ownedByAnotherUser(_, let caller):
            return "use a keychain directory of your own, or if this one should be yours: chown\(isDirectory ? " -R" : "") \(caller) \(quoted)"
        case .openToOthers(let mode):
            guard isDirectory else { return "chmod 600 \(quoted)" }
            // A shared directory (/tmp) must stay shared: the keychain moves instead.
            let ownDirectory = "keep the keychain in a directory of its own (mkdir -m 700 \(Self.shellQuoted(path + "/keychains")))"
            if mode & 0o1000 != 0 { return ownDirectory }
            return "chmod 700 \(quoted) if only keychains are kept there; otherwise \(ownDirectory)"
        case .symbolicLink:
            return "replace the link \(quoted) with the file itself"
        case .wrongType:
            return "move \(quoted) out of the way"
        }
    }

    /// The error's reason: the summary and the fix, without the path (engine errors may be logged).
    var reason: String {
        switch problem {
        case .ownedByAnotherUser(_, let caller):
            return summary + "; fix: use a keychain directory of your own, or chown it to uid \(caller)"
        case .openToOthers(let mode):
            if isDirectory && mode & 0o1000 != 0 { return summary + "; fix: keep the keychain in a directory of its own" }
            return summary + "; fix: chmod \(isDirectory ? "700" : "600") the \(role)"
        case .symbolicLink:
            return summary + "; fix: replace the link with the file itself"
        case .wrongType:
            return summary + "; fix: move it out of the way"
        }
    }

    /// `mode` as four octal digits (`0644`).
    private static func octal(_ mode: UInt32) -> String {
        let digits = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// `text` as one POSIX shell word.
    private static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
