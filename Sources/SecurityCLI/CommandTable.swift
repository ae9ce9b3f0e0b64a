/// Every command of macOS's `security`, in its order (command words match by prefix, first
/// entry first), with the implemented ones wired to their code.
///
/// This is the one list of what is implemented: an entry without an action exists on macOS
/// but not here, and running it fails with errSecUnimplemented (exit status 252).
enum CommandTable {
    /// The commands, in lookup and listing order.
    static let commands: [Command] = [
        Command(
            "help", usage: "[command ...]", summary: "Show all commands, or show usage for a command.",
            action: HelpCommand.run),
        Command(
            "list-keychains",
            usage: """
                [-d user|system|common|dynamic] [-s [keychain...]]
                    -d  Use the given preference domain
                    -s  Set the search list to the given keychains
                With no options, print the search list.
                """,
            summary: "Display or manipulate the keychain search list.",
            action: ListKeychainsCommand.run),
        Command(
            "default-keychain",
            usage: """
                [-d user|system|common|dynamic] [-s [keychain]]
                    -d  Use the given preference domain
                    -s  Make the given keychain the default
                With no options, print the default keychain.
                """,
            summary: "Display or set the default keychain.",
            action: DefaultKeychainCommand.run),
        Command(
            "login-keychain",
            usage: """
                [-d user|system|common|dynamic] [-s [keychain]]
                    -d  Use the given preference domain
                    -s  Make the given keychain the login keychain
                With no options, print the login keychain.
                """,
            summary: "Display or set the login keychain."),
        Command(
            "create-keychain",
            usage: """
                [-P] [-p password] [keychains...]
                    -p  Use "password" as the new keychains' password
                    -P  Ask for the password (on the terminal; there is no dialog)
                Without -p the password is asked for twice; an empty one means none.
                """,
            summary: "Create keychains and add them to the search list.",
            secretOptions: ("hp:P", ["p"]),
            action: CreateKeychainCommand.run),
        Command(
            "delete-keychain", usage: "keychain...",
            summary: "Delete keychains and remove them from the search list.",
            action: DeleteKeychainCommand.run),
        Command(
            "lock-keychain",
            usage: """
                [-a | keychain]
                    -a  Lock every keychain of the search list
                The lock lasts as long as this process (use security -i to keep one).
                """,
            summary: "Lock the specified keychain.",
            action: LockKeychainCommand.run),
        Command(
            "unlock-keychain",
            usage: """
                [-u] [-p password] [keychain]
                    -p  Unlock with "password"
                    -u  Ask for the password (on the terminal; there is no dialog)
                The unlock lasts as long as this process (use security -i to keep one).
                """,
            summary: "Unlock the specified keychain.",
            secretOptions: ("hp:u", ["p"]),
            action: UnlockKeychainCommand.run),
        Command(
            "set-keychain-settings",
            usage: """
                [-lu] [-t timeout] [keychain]
                    -l  Lock the keychain when the system sleeps
                    -u  Lock the keychain after the timeout
                    -t  Timeout in seconds (without it, there is no timeout)
                """,
            summary: "Set settings for a keychain.",
            action: SetKeychainSettingsCommand.run),
        Command(
            "set-keychain-password",
            usage: """
                [-o oldPassword] [-p newPassword] [keychain]
                    -o  The current password (asked for when omitted)
                    -p  The new password (asked for when omitted; empty removes the password)
                """,
            summary: "Set password for a keychain.",
            secretOptions: ("ho:p:", ["o", "p"]),
            action: SetKeychainPasswordCommand.run),
        Command(
            "show-keychain-info", usage: "[keychain]", summary: "Show the settings for keychain.",
            action: ShowKeychainInfoCommand.run),
        Command(
            "backup-keychain",
            usage: """
                [-P passphrase] -o file [keychain]
                    -P  Protect the backup with "passphrase" (asked for twice when omitted)
                    -o  Write the backup to "file"
                Items that require the keychain password are never backed up.
                """,
            summary: "Back up every item of a keychain to a passphrase-protected file.",
            secretOptions: ("hP:o:", ["P"]),
            action: BackupKeychainCommand.run),
        Command(
            "restore-keychain",
            usage: """
                [-P passphrase] [-k keychain] file
                    -P  The backup's passphrase (asked for when omitted)
                    -k  Restore into "keychain" (the default keychain when omitted)
                Replaces the keychain's items with the backup's; on another device the
                ThisDeviceOnly items are left out.
                """,
            summary: "Replace a keychain's items with those of a backup.",
            secretOptions: ("hP:k:", ["P"]),
            action: RestoreKeychainCommand.run),
        Command(
            "dump-keychain",
            usage: """
                [-adir] [-o file] [keychain...]
                    -a  Show each item's access control
                    -d  Show each item's (decrypted) data
                    -i  Edit access control interactively
                    -r  Show each item's raw (encrypted) data
                    -o  Write the dump to "file"
                With no keychain, the default keychain is dumped.
                """,
            summary: "Dump the contents of one or more keychains.",
            action: DumpKeychainCommand.run),
        Command(
            "create-keypair",
            usage: "[-a alg] [-s size] [-f date] [-t date] [-d days] [-k keychain] [-A|-T appPath] description",
            summary: "Create an asymmetric key pair."),
        Command(
            "add-generic-password",
            usage: """
                [-a account] [-s service] [-w password] [options...] [-A|-T appPath] [keychain]
                    -a  Account name (required)
                    -c  Creator (optional four-character code)
                    -C  Type (optional four-character code)
                    -D  Kind
                    -e  Accessibility: ak, ck, dk, aku, cku, dku, akpu (or WhenUnlocked,
                        AfterFirstUnlockThisDeviceOnly, …); WhenUnlocked when omitted
                    -G  Generic attribute (optional)
                    -j  Comment (optional)
                    -l  Label (the service name when omitted)
                    -s  Service name (required)
                    -p  Password (older spelling of -w)
                    -w  Password; as the last option with no value, ask for it on the terminal
                    -X  Password as hexadecimal digits
                    -A  Accepted and ignored (this keychain has no access control lists)
                    -T  Accepted and ignored (this keychain has no access control lists)
                    -U  Update the item if it exists (otherwise it must not exist)
                If no keychain is given, the password is added to the default keychain.
                """,
            summary: "Add a generic password item.",
            secretOptions: (PasswordItemOptions.specification(.generic, .add), ["w", "p", "X"]),
            action: { try AddPasswordCommand.run($0, kind: .generic) }),
        Command(
            "add-internet-password",
            usage: """
                [-a account] [-s server] [-w password] [options...] [-A|-T appPath] [keychain]
                    -a  Account name (required)
                    -c  Creator (optional four-character code)
                    -C  Type (optional four-character code)
                    -d  Security domain (optional)
                    -D  Kind
                    -e  Accessibility: ak, ck, dk, aku, cku, dku, akpu (or WhenUnlocked,
                        AfterFirstUnlockThisDeviceOnly, …); WhenUnlocked when omitted
                    -j  Comment (optional)
                    -l  Label (the server name when omitted)
                    -p  Path (optional)
                    -P  Port number (optional)
                    -r  Protocol (optional four-character code, such as "http" or "ftp ")
                    -s  Server name (required)
                    -t  Authentication type (four-character code, "dflt" when omitted)
                    -w  Password; as the last option with no value, ask for it on the terminal
                    -X  Password as hexadecimal digits
                    -A  Accepted and ignored (this keychain has no access control lists)
                    -T  Accepted and ignored (this keychain has no access control lists)
                    -U  Update the item if it exists (otherwise it must not exist)
                If no keychain is given, the password is added to the default keychain.
                """,
            summary: "Add an internet password item.",
            secretOptions: (PasswordItemOptions.specification(.internet, .add), ["w", "X"]),
            action: { try AddPasswordCommand.run($0, kind: .internet) }),
        Command(
            "add-certificates", usage: "[-k keychain] file...", summary: "Add certificates to a keychain.",
            action: AddCertificatesCommand.run),
        Command(
            "find-generic-password",
            usage: """
                [-a account] [-s service] [options...] [-g] [keychain...]
                    -a  Match the account
                    -c  Match the creator (four-character code)
                    -C  Match the type (four-character code)
                    -D  Match the kind
                    -G  Match the generic attribute
                    -j  Match the comment
                    -l  Match the label
                    -s  Match the service
                    -g  Also print the password (on standard error)
                    -w  Print only the password
                If no keychain is given, the default keychain is searched.
                """,
            summary: "Find a generic password item.",
            action: { try FindPasswordCommand.run($0, kind: .generic) }),
        Command(
            "delete-generic-password",
            usage: """
                [-a account] [-s service] [options...] [keychain...]
                    -a  Match the account
                    -c  Match the creator (four-character code)
                    -C  Match the type (four-character code)
                    -D  Match the kind
                    -G  Match the generic attribute
                    -j  Match the comment
                    -l  Match the label
                    -s  Match the service
                If no keychain is given, the default keychain is searched.
                """,
            summary: "Delete a generic password item.",
            action: { try DeletePasswordCommand.run($0, kind: .generic) }),
        Command(
            "set-generic-password-partition-list", usage: "[options...] [keychain]",
            summary: "Set the partition list of a generic password item."),
        Command(
            "find-internet-password",
            usage: """
                [-a account] [-s server] [options...] [-g] [keychain...]
                    -a  Match the account
                    -c  Match the creator (four-character code)
                    -C  Match the type (four-character code)
                    -d  Match the security domain
                    -D  Match the kind
                    -j  Match the comment
                    -l  Match the label
                    -p  Match the path
                    -P  Match the port number
                    -r  Match the protocol (four-character code)
                    -s  Match the server
                    -t  Match the authentication type (four-character code)
                    -g  Also print the password (on standard error)
                    -w  Print only the password
                If no keychain is given, the default keychain is searched.
                """,
            summary: "Find an internet password item.",
            action: { try FindPasswordCommand.run($0, kind: .internet) }),
        Command(
            "delete-internet-password",
            usage: """
                [-a account] [-s server] [options...] [keychain...]
                    -a  Match the account
                    -c  Match the creator (four-character code)
                    -C  Match the type (four-character code)
                    -d  Match the security domain
                    -D  Match the kind
                    -j  Match the comment
                    -l  Match the label
                    -p  Match the path
                    -P  Match the port number
                    -r  Match the protocol (four-character code)
                    -s  Match the server
                    -t  Match the authentication type (four-character code)
                If no keychain is given, the default keychain is searched.
                """,
            summary: "Delete an internet password item.",
            action: { try DeletePasswordCommand.run($0, kind: .internet) }),
        Command(
            "set-internet-password-partition-list", usage: "[options...] [keychain]",
            summary: "Set the partition list of an internet password item."),
        Command("find-key", usage: "[options...] [keychain...]", summary: "Find keys in the keychain."),
        Command(
            "set-key-partition-list", usage: "[options...] [keychain]", summary: "Set the partition list of a key."),
        Command(
            "find-certificate",
            usage: """
                [-a] [-c name] [-e emailAddress] [-m] [-p] [-Z] [keychain...]
                    -a  Find all matching certificates, not just the first one
                    -c  Match on "name" (a substring of the common name or label)
                    -e  Match on "emailAddress"
                    -m  Show the email addresses in the certificate
                    -p  Output certificate in pem format
                    -Z  Print SHA-256 (and SHA-1) hash of the certificate
                If no keychains are specified to search, the default search list is used.
                """,
            summary: "Find a certificate item.",
            action: FindCertificateCommand.run),
        Command(
            "find-identity",
            usage: """
                [-p policy] [-s string] [-v] [keychain...]
                    -p  Specify policy to evaluate (multiple -p options are allowed)
                        Supported policies: basic, ssl-client, ssl-server, smime, eap,
                        ipsec, ichat, codesigning, sys-default, sys-kerberos-kdc
                    -s  Specify optional policy-specific string (e.g. DNS hostname for SSL,
                        or RFC822 email address for S/MIME)
                    -v  Show valid identities only (default is to show all identities)
                If no keychains are specified to search, the default search list is used.
                """,
            summary: "Find an identity (certificate + private key).",
            action: FindIdentityCommand.run),
        Command(
            "delete-certificate",
            usage: """
                [-c name] [-Z hash] [-t] [keychain...]
                    -c  Specify certificate to delete by its common name
                    -Z  Specify certificate to delete by its SHA-1 hash value
                    -t  Also delete user trust settings for this certificate
                """,
            summary: "Delete a certificate from a keychain.",
            action: { try DeleteCertificateCommand.run($0, identity: false) }),
        Command(
            "delete-identity",
            usage: """
                [-c name] [-Z hash] [-t] [keychain...]
                    -c  Specify identity to delete by its common name
                    -Z  Specify identity to delete by its SHA-1 hash value
                    -t  Also delete user trust settings for this identity certificate
                """,
            summary: "Delete an identity (certificate + private key) from a keychain.",
            action: { try DeleteCertificateCommand.run($0, identity: true) }),
        Command(
            "set-identity-preference", usage: "[-n] [-c identity] [-s service] [-u keyUsage] [-Z hash] [keychain...]",
            summary: "Set the preferred identity to use for a service."),
        Command(
            "get-identity-preference", usage: "[-s service] [-u keyUsage] [-p] [-c] [-Z] [keychain...]",
            summary: "Get the preferred identity to use for a service."),
        Command("create-db", usage: "[-ao0] [-g dl|cspdl] [-m mode] [name]", summary: "Create a db using the DL."),
        Command(
            "export",
            usage: """
                [-k keychain] [-t type] [-f format] [-w] [-p] [-P passphrase] [-o outfile]
                    -k  Keychain to export items from
                    -t  Type = certs|allKeys|pubKeys|privKeys|identities|all (Default: all)
                    -f  Format = openssl|pkcs8|pkcs12|x509|pemseq
                    -w  Private keys are wrapped (always: they are encrypted with the passphrase)
                    -p  PEM encode the output
                    -P  Specify wrapping passphrase immediately (default is a prompt)
                    -o  Specify output file (default is stdout)
                """,
            summary: "Export items from a keychain.",
            secretOptions: ("k:o:t:f:P:wph", ["P"]),
            action: ExportCommand.run),
        Command(
            "import",
            usage: """
                inputfile [-k keychain] [-t type] [-f format] [-w] [-P passphrase] [options...]
                    -k  Target keychain to import into
                    -t  Type = pub|priv|session|cert|agg
                    -f  Format = openssl|openssh1|openssh2|bsafe|raw|pkcs7|pkcs8|pkcs12|netscape|x509|pemseq
                    -w  Specify that private keys are wrapped and must be unwrapped on import
                    -x  Specify that private keys are non-extractable after being imported
                    -P  Specify wrapping passphrase immediately (default is a prompt)
                    -a  Specify name and value of extended attribute (can be used multiple times)
                    -A  Allow any application to access the imported key without warning (accepted)
                    -T  Specify an application which may access the imported key (accepted)
                """,
            summary: "Import items into a keychain.",
            secretOptions: ("k:t:f:P:wxa:hAT:", ["P"]),
            action: ImportCommand.run),
        Command("cms", usage: "[-C|-D|-E|-S] [<options>]", summary: "Encode or decode CMS messages."),
        Command("install-mds", usage: "", summary: "Install (or re-install) the MDS database."),
        Command("add-trusted-cert", usage: "[<options>] [certFile]", summary: "Add trusted certificate(s)."),
        Command("remove-trusted-cert", usage: "[-d] [-D] [certFile]", summary: "Remove trusted certificate(s)."),
        Command("dump-trust-settings", usage: "[-s] [-d]", summary: "Display contents of trust settings."),
        Command(
            "user-trust-settings-enable", usage: "[-d] [-e]",
            summary: "Display or manipulate user-level trust settings."),
        Command("trust-settings-export", usage: "[-s] [-d] settings_file", summary: "Export trust settings."),
        Command("trust-settings-import", usage: "[-d] settings_file", summary: "Import trust settings."),
        Command("verify-cert", usage: "[<options>]", summary: "Verify certificate(s)."),
        Command("authorize", usage: "[<options>] <right(s)...>", summary: "Perform authorization operations."),
        Command(
            "authorizationdb", usage: "read <right-name>",
            summary: "Make changes to the authorization policy database."),
        Command(
            "execute-with-privileges", usage: "<program> [args...]", summary: "Execute tool with privileges."),
        Command("leaks", usage: "[-cycles] [-nocontext] [-nostacks] [-exclude symbol]", summary: "Run /usr/bin/leaks on this process."),
        Command("smartcards", usage: "token [-l] [-e token] [-d token]", summary: "Enable, disable or list disabled smartcard tokens."),
        Command("list-smartcards", usage: "", summary: "Display available smartcards."),
        Command("export-smartcard", usage: "token [-i id] [-t type]", summary: "Export/display items from a smartcard."),
        Command(
            "error",
            usage: """
                <error code(s)...>
                Print the message for each security error code, given in decimal or hex
                (1234 or 0x1234); separate several codes with spaces.
                """,
            summary: "Display a descriptive message for the given error code(s).",
            action: ErrorCommand.run),
    ]

    /// The command `word` names: the first whose name starts with it, as macOS matches.
    static func command(named word: String) -> Command? {
        commands.first { $0.name.hasPrefix(word) }
    }
}
