import Foundation
import KeychainCore
import SecurityCLI

// The `security` executable: all behaviour lives in SecurityCLI. The tool owns its process, so
// OpenSSL starts without the system configuration file, and without its table of legacy
// algorithm names when the command's definition says it does not need them (see
// `CryptoRuntime`). Arguments are read as the bytes the process was given: a password need not
// be UTF-8, and no argument is repaired.
let arguments = (0..<Int(CommandLine.argc)).map { index in
    CommandLine.unsafeArgv[index].map { Array(UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: strlen($0))) } ?? []
}
CryptoRuntime.initializeWithoutSystemConfiguration(
    legacyNames: SecurityTool.needsLegacyAlgorithmNames(Array(arguments.dropFirst())))
exit(SecurityTool.main(rawArguments: arguments))
