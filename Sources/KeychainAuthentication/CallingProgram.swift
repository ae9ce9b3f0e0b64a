import Foundation

/// The name of the program on whose behalf a prompt asks: the file name of its executable.
package enum CallingProgram {
    /// This process's executable name (`/proc/self/exe`, else the name it was started under).
    package static var current: String {
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return name(ofExecutable: target)
        }
        return ProcessInfo.processInfo.processName
    }

    /// This process's identity for values that must differ per program (the biometric domain
    /// state): its executable's path (`/proc/self/exe`), else the name it was started under.
    package static var identity: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ProcessInfo.processInfo.processName
    }

    /// The name shown for the executable at `path`: its last component, without the
    /// " (deleted)" the kernel appends to a replaced executable's link.
    package static func name(ofExecutable path: String) -> String {
        var file = (path as NSString).lastPathComponent
        if file.hasSuffix(" (deleted)") { file = String(file.dropLast(" (deleted)".count)) }
        return file
    }
}
