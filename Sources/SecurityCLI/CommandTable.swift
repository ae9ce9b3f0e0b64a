/// Every command of macOS's `security`, in its order (command words match by prefix, first
/// entry first): the implemented ones are defined in `Commands/`, one type per command; the
/// others, which exist on macOS but not here, are `UnimplementedCommand`s and fail with
/// errSecUnimplemented (exit status 252).
enum CommandTable {
    /// The commands, in lookup and listing order.
    static let commands: [any CommandDefinition] = [
        HelpCommand(),
        ListKeychainsCommand(),
        DefaultKeychainCommand(),
        UnimplementedCommand(
            "login-keychain",
            usage: """
                [-d user|system|common|dynamic] [-s [keychain]]
                    -d  Use the given preference domain
                    -s  Make the given keychain the login keychain
                With no options, print the login keychain.
                """,
            summary: "Display or set the login keychain."),
        CreateKeychainCommand(),
        DeleteKeychainCommand(),
        LockKeychainCommand(),
        UnlockKeychainCommand(),
        SetKeychainSettingsCommand(),
        SetKeychainPasswordCommand(),
        ShowKeychainInfoCommand(),
        BackupKeychainCommand(),
        RestoreKeychainCommand(),
        DumpKeychainCommand(),
        UnimplementedCommand(
            "create-keypair",
            usage: "[-a alg] [-s size] [-f date] [-t date] [-d days] [-k keychain] [-A|-T appPath] description",
            summary: "Create an asymmetric key pair."),
        AddPasswordCommand(kind: .generic),
        AddPasswordCommand(kind: .internet),
        AddCertificatesCommand(),
        FindPasswordCommand(kind: .generic),
        DeletePasswordCommand(kind: .generic),
        UnimplementedCommand(
            "set-generic-password-partition-list", usage: "[options...] [keychain]",
            summary: "Set the partition list of a generic password item.",
            options: OptionParser(":a:c:C:D:G:j:l:s:S:k:", secrets: ["k"])),
        FindPasswordCommand(kind: .internet),
        DeletePasswordCommand(kind: .internet),
        UnimplementedCommand(
            "set-internet-password-partition-list", usage: "[options...] [keychain]",
            summary: "Set the partition list of an internet password item.",
            options: OptionParser("a:c:C:d:D:j:l:p:P:r:s:S:t:k:", secrets: ["k"])),
        UnimplementedCommand("find-key", usage: "[options...] [keychain...]", summary: "Find keys in the keychain."),
        UnimplementedCommand(
            "set-key-partition-list", usage: "[options...] [keychain]", summary: "Set the partition list of a key.",
            options: OptionParser(":a:c:dD:ej:k:l:rsS:t:uvw", secrets: ["k"])),
        FindCertificateCommand(),
        FindIdentityCommand(),
        DeleteCertificateCommand(identity: false),
        DeleteCertificateCommand(identity: true),
        UnimplementedCommand(
            "set-identity-preference", usage: "[-n] [-c identity] [-s service] [-u keyUsage] [-Z hash] [keychain...]",
            summary: "Set the preferred identity to use for a service."),
        UnimplementedCommand(
            "get-identity-preference", usage: "[-s service] [-u keyUsage] [-p] [-c] [-Z] [keychain...]",
            summary: "Get the preferred identity to use for a service."),
        UnimplementedCommand("create-db", usage: "[-ao0] [-g dl|cspdl] [-m mode] [name]", summary: "Create a db using the DL."),
        ExportCommand(),
        ImportCommand(),
        UnimplementedCommand("cms", usage: "[-C|-D|-E|-S] [<options>]", summary: "Encode or decode CMS messages."),
        UnimplementedCommand("install-mds", usage: "", summary: "Install (or re-install) the MDS database."),
        UnimplementedCommand("add-trusted-cert", usage: "[<options>] [certFile]", summary: "Add trusted certificate(s)."),
        UnimplementedCommand("remove-trusted-cert", usage: "[-d] [-D] [certFile]", summary: "Remove trusted certificate(s)."),
        UnimplementedCommand("dump-trust-settings", usage: "[-s] [-d]", summary: "Display contents of trust settings."),
        UnimplementedCommand(
            "user-trust-settings-enable", usage: "[-d] [-e]",
            summary: "Display or manipulate user-level trust settings."),
        UnimplementedCommand("trust-settings-export", usage: "[-s] [-d] settings_file", summary: "Export trust settings."),
        UnimplementedCommand("trust-settings-import", usage: "[-d] settings_file", summary: "Import trust settings."),
        UnimplementedCommand("verify-cert", usage: "[<options>]", summary: "Verify certificate(s)."),
        UnimplementedCommand("authorize", usage: "[<options>] <right(s)...>", summary: "Perform authorization operations."),
        UnimplementedCommand(
            "authorizationdb", usage: "read <right-name>",
            summary: "Make changes to the authorization policy database."),
        UnimplementedCommand(
            "execute-with-privileges", usage: "<program> [args...]", summary: "Execute tool with privileges."),
        UnimplementedCommand(
            "leaks", usage: "[-cycles] [-nocontext] [-nostacks] [-exclude symbol]",
            summary: "Run /usr/bin/leaks on this process."),
        UnimplementedCommand(
            "smartcards", usage: "token [-l] [-e token] [-d token]",
            summary: "Enable, disable or list disabled smartcard tokens."),
        UnimplementedCommand("list-smartcards", usage: "", summary: "Display available smartcards."),
        UnimplementedCommand(
            "export-smartcard", usage: "token [-i id] [-t type]", summary: "Export/display items from a smartcard."),
        ErrorCommand(),
        // This tool's own, after macOS's commands so that no macOS prefix changes meaning.
        EntitlementsCommand(),
        SyncCommand(),
    ]

    /// The command `word` names: the first whose name starts with it, as macOS matches.
    static func command(named word: String) -> (any CommandDefinition)? {
        commands.first { $0.name.hasPrefix(word) }
    }
}
