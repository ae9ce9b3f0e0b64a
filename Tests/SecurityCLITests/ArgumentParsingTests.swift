import Testing

@testable import SecurityCLI

/// The argument parser and option models, through the library (no process, no keychain).
@Suite struct ArgumentParsingTests {
    @Test func getoptClustersAttachedAndDetachedValues() {
        let parser = OptionParser("ha:c:gw")
        let scan = parser.parse(["-gw", "-ame", "-c", "-x-", "keychain", "-a", "late"])
        #expect(scan.elements == [.option("g", nil), .option("w", nil), .option("a", "me"), .option("c", "-x-")])
        #expect(scan.operands == ["keychain", "-a", "late"])
    }

    @Test func getoptStopsAtDoubleDashAndLoneDash() {
        let parser = OptionParser("a:")
        #expect(parser.parse(["-a", "1", "--", "-a", "2"]).operands == ["-a", "2"])
        #expect(parser.parse(["-", "-a", "2"]).operands == ["-", "-a", "2"])
    }

    @Test func getoptReportsUnknownOptionsAndMissingValues() {
        let loud = OptionParser("a:g")
        #expect(loud.parse(["-g", "-z", "-a", "x"]).elements == [.option("g", nil), .unknown("z")])
        #expect(loud.parse(["-a"]).elements == [.missingValue("a")])
        #expect(loud.usageError(for: .unknown("z")) == .usage(reason: "illegal option -- z"))
        #expect(loud.usageError(for: .missingValue("a")) == .usage(reason: "option requires an argument -- a"))
        let quiet = OptionParser(":a:")
        #expect(quiet.quiet)
        #expect(quiet.usageError(for: .unknown("z")) == .usage(reason: nil))
    }

    @Test func addOptionsParseEveryGenericFlag() throws {
        let options = try PasswordItemOptions.parse(
            ["-a", "acct", "-s", "svc", "-l", "lbl", "-D", "kind", "-j", "cmt", "-G", "gen", "-c", "crea", "-C", "type",
             "-w", "pw", "-U", "-A", "-T", "/bin/app", "my.keychain"],
            kind: .generic, operation: .add)
        #expect(options.account == "acct")
        #expect(options.serviceOrServer == "svc")
        #expect(options.label == "lbl")
        #expect(options.kind == "kind")
        #expect(options.comment == "cmt")
        #expect(options.genericValue == "gen")
        #expect(options.creator?.packed == 0x6372_6561)
        #expect(options.type?.text == "type")
        #expect(options.password == .bytes(Array("pw".utf8)))
        #expect(options.update)
        #expect(options.keychains == ["my.keychain"])
    }

    @Test func addOptionsParseEveryInternetFlag() throws {
        let options = try PasswordItemOptions.parse(
            ["-a", "me", "-s", "host", "-d", "realm", "-p", "/path", "-P", "8080", "-r", "htps", "-t", "ntlm", "-X", "414243"],
            kind: .internet, operation: .add)
        #expect(options.securityDomain == "realm")
        #expect(options.path == "/path")
        #expect(options.port == 8080)
        #expect(options.protocolCode?.text == "htps")
        #expect(options.authenticationType?.text == "ntlm")
        #expect(options.password == .bytes([0x41, 0x42, 0x43]))
    }

    @Test func trailingWWithoutAValueAsksForAPrompt() throws {
        let generic = try PasswordItemOptions.parse(["-a", "me", "-s", "svc", "-w"], kind: .generic, operation: .add)
        #expect(generic.password == .prompt)
        let legacy = try PasswordItemOptions.parse(["-a", "me", "-s", "svc", "-p"], kind: .generic, operation: .add)
        #expect(legacy.password == .prompt)
        // getopt takes the next word as the value, whatever it looks like.
        let swallowed = try PasswordItemOptions.parse(["-a", "me", "-s", "svc", "-w", "-s", "-U"], kind: .generic, operation: .add)
        #expect(swallowed.password == .bytes(Array("-s".utf8)))
        #expect(swallowed.update)
        // For internet passwords -p is the path, so a trailing -p is simply incomplete.
        #expect(throws: ToolError.usage(reason: nil)) {
            try PasswordItemOptions.parse(["-a", "me", "-s", "host", "-p"], kind: .internet, operation: .add)
        }
    }

    @Test(arguments: [
        (["-s", "svc", "-w", "pw"], PasswordKind.generic),
        (["-a", "me", "-w", "pw"], .generic),
        (["-a", "me", "-w", "pw"], .internet),
        (["-a", "me", "-s", "svc", "one", "two"], .generic),
        (["-a", "me", "-s", "svc", ""], .generic),
        (["-a", "me", "-s", "svc", "-h"], .generic),
        (["-a", "me", "-s", "svc", "-Q"], .internet),
    ])
    func incompleteAddsAreBadUsage(_ arguments: [String], _ kind: PasswordKind) {
        #expect(throws: ToolError.usage(reason: nil)) {
            try PasswordItemOptions.parse(arguments, kind: kind, operation: .add)
        }
    }

    @Test func findAndDeleteOptions() throws {
        let find = try PasswordItemOptions.parse(["-a", "me", "-g", "-w", "kc1", "kc2"], kind: .generic, operation: .find)
        #expect(find.showPassword && find.passwordOnly)
        #expect(find.keychains == ["kc1", "kc2"])
        #expect(throws: ToolError.usage(reason: nil)) {
            try PasswordItemOptions.parse([], kind: .internet, operation: .delete)
        }
        #expect(throws: ToolError.usage(reason: "illegal option -- w")) {
            try PasswordItemOptions.parse(["-a", "me", "-w"], kind: .generic, operation: .delete)
        }
        let portOnly = try PasswordItemOptions.parse(["-P", "21"], kind: .internet, operation: .delete)
        #expect(portOnly.hasCriteria)
    }

    @Test func fourCharacterCodesNeedExactlyFourBytes() throws {
        #expect(try FourCharacterCode(parsing: "abcd").packed == 0x6162_6364)
        #expect(try FourCharacterCode(parsing: "ftp ").packed == 0x6674_7020)
        #expect(
            throws: ToolError.failed(
                result: 1,
                message: "Error: four-character types must be exactly 4 characters long.\n(Try \"ftp \" instead of \"ftp\")\n")
        ) { try FourCharacterCode(parsing: "ftp") }
        #expect(
            throws: ToolError.failed(result: 1, message: "Error: four-character types must be exactly 4 characters long.\n")
        ) { try FourCharacterCode(parsing: "https") }
    }

    @Test func searchUsesOnlyThePrimaryKeyWhenItIsComplete() throws {
        let full = try PasswordItemOptions.parse(["-a", "me", "-s", "svc", "-l", "lbl", "-j", "c"], kind: .generic, operation: .find)
        #expect(Set(full.searchRequest(.generic).attributes.keys) == ["acct", "svce"])
        let partial = try PasswordItemOptions.parse(["-a", "me", "-l", "lbl", "-j", "c"], kind: .generic, operation: .find)
        #expect(Set(partial.searchRequest(.generic).attributes.keys) == ["acct", "labl", "icmt"])
        let internet = try PasswordItemOptions.parse(
            ["-a", "me", "-s", "h", "-d", "d", "-r", "htps", "-t", "dflt", "-P", "1", "-p", "/", "-l", "x"],
            kind: .internet, operation: .find)
        #expect(Set(internet.searchRequest(.internet).attributes.keys) == ["acct", "srvr", "sdmn", "ptcl", "atyp", "port", "path"])
    }

    @Test func addRequestDefaultsLabelAuthenticationTypeAndPort() throws {
        let options = try PasswordItemOptions.parse(["-a", "me", "-s", "host", "-r", "htps"], kind: .internet, operation: .add)
        let request = options.addRequest(.internet)
        #expect(request.attributes["labl"] == .string("host"))
        #expect(request.attributes["atyp"] == .string("dflt"))
        #expect(request.attributes["port"] == .integer(0))
        #expect(request.attributes["ptcl"] == .string("htps"))
        #expect(request.attributes["path"] == nil)
    }

    @Test func errorCodesParseLikeStrtoul() {
        #expect(ErrorCommand.parseCode("-25300") == -25300)
        #expect(ErrorCommand.parseCode("0xFFFF9D2C") == -25300)
        #expect(ErrorCommand.parseCode("0x10") == 16)
        #expect(ErrorCommand.parseCode("010") == 8)
        #expect(ErrorCommand.parseCode("4294967295") == -1)
        #expect(ErrorCommand.parseCode("12abc") == nil)
        #expect(ErrorCommand.parseCode("0x") == nil)
        #expect(ErrorCommand.line(for: -25293) == "Error: 0xFFFF9D33 -25293 The user name or passphrase you entered is not correct.\n")
    }

    @Test func interactiveLinesSplitLikeMacOS() {
        #expect(InteractiveMode.split(#"find -a "two words" -s 'it''s' a\ b "q\"q""#) == ["find", "-a", "two words", "-s", "it", "s", "a b", "q\"q"])
        #expect(InteractiveMode.split("   ") == [])
        #expect(InteractiveMode.split(String(repeating: "w ", count: 40)).count == 32)
    }

    @Test func verboseEchoMasksPasswordValues() throws {
        let command = try #require(CommandTable.command(named: "add-generic-password"))
        #expect(
            ArgumentRedaction.echo(command: command, arguments: ["-Uwsecret", "-a", "me", "-X", "4142", "-p", "pw", "kc"])
                == "add-generic-password \"-Uw********\" \"-a\" \"me\" \"-X\" \"********\" \"-p\" \"********\" \"kc\"\n")
        let internet = try #require(CommandTable.command(named: "add-internet-password"))
        #expect(
            ArgumentRedaction.echo(command: internet, arguments: ["-p", "/path", "-w", "pw"])
                == "add-internet-password \"-p\" \"/path\" \"-w\" \"********\"\n")
    }

    @Test func commandWordsMatchByPrefixInTableOrder() {
        #expect(CommandTable.command(named: "find-g")?.name == "find-generic-password")
        #expect(CommandTable.command(named: "find")?.name == "find-generic-password")
        #expect(CommandTable.command(named: "du")?.name == "dump-keychain")
        #expect(CommandTable.command(named: "nope") == nil)
    }

    @Test func exitStatusIsTheResultsLowByte() {
        #expect(ToolError.exitStatus(for: -25300) == 44)
        #expect(ToolError.exitStatus(for: -25299) == 45)
        #expect(ToolError.exitStatus(for: -25294) == 50)
        #expect(ToolError.exitStatus(for: -4) == 252)
        #expect(ToolError.exitStatus(for: -50) == 206)
        #expect(ToolError.exitStatus(for: -128) == 128)
        #expect(ToolError.exitStatus(for: 2) == 2)
    }
}
