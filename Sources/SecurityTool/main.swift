import Foundation
import SecurityCLI

// The `security` executable: all behaviour lives in SecurityCLI.
exit(SecurityTool.main(CommandLine.arguments))
