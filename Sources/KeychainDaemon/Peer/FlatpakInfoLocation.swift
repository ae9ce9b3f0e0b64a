import Foundation

/// Where the daemon looks for a process's Flatpak sandbox description. Flatpak mounts
/// `.flatpak-info` at the root of every sandbox, so by default it is
/// `/proc/<pid>/root/.flatpak-info`; a test hands the daemon another place through this seam
/// (an initializer parameter, never something a client can set).
public struct FlatpakInfoLocation: Sendable {
    /// The path of the file for the process `pid`.
    public let path: @Sendable (_ pid: Int32) -> String

    /// A location computed by `path`.
    public init(path: @escaping @Sendable (_ pid: Int32) -> String) {
        self.path = path
    }

    /// `/proc/<pid>/root/.flatpak-info`: the file inside the process's own root.
    public static let sandboxRoot = FlatpakInfoLocation { "/proc/\($0)/root/.flatpak-info" }
}
