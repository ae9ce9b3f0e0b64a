import Foundation
import KeychainCore
import SecurityCLI

// The `security` executable: all behaviour lives in SecurityCLI. The tool owns its process, so
// OpenSSL starts without the system configuration file, and for a single password-item command
// (no global options, no interactive mode) without its table of legacy algorithm names, which
// only the certificate, key and PKCS#12 commands use (see `CryptoRuntime`).
let passwordItemCommands: Set = [
    "find-generic-password", "find-internet-password", "add-generic-password", "add-internet-password",
    "delete-generic-password", "delete-internet-password",
]
let command = CommandLine.arguments.dropFirst().first ?? ""
CryptoRuntime.initializeWithoutSystemConfiguration(legacyNames: !passwordItemCommands.contains(command))
exit(SecurityTool.main(CommandLine.arguments))
