import Foundation
import KeychainCore
import SecurityCLI

// The `security` executable: all behaviour lives in SecurityCLI. The tool owns its process, so
// OpenSSL starts without the system configuration file (see `CryptoRuntime`).
CryptoRuntime.initializeWithoutSystemConfiguration()
exit(SecurityTool.main(CommandLine.arguments))
