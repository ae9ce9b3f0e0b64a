/// One D-Bus message: its header (type, flags, serial and header fields) and its body.
///
/// On the wire: the endianness byte (`l` little, `B` big), the type, the flags, the major
/// protocol version (1), the body's length (`UInt32`), the serial (`UInt32`, not 0), the header
/// fields as an array of `(byte code, variant value)`, padding to 8 bytes, then the body, whose
/// types the `SIGNATURE` field gives. This side writes little-endian and reads either order.
/// Decoding checks the required fields of each type (a method call has `PATH` and `MEMBER`, a
/// signal also `INTERFACE`, a return `REPLY_SERIAL`, an error `ERROR_NAME` and `REPLY_SERIAL`),
/// the type of every known field and the validity of names; fields of unknown codes are ignored.
package struct DBusMessage: Equatable, Sendable {
    /// The message type.
    package enum Kind: UInt8, Sendable {
        case methodCall = 1
        case methodReturn = 2
        case error = 3
        case signal = 4
    }

    /// The header flags.
    package struct Flags: OptionSet, Hashable, Sendable {
        package let rawValue: UInt8
        package init(rawValue: UInt8) { self.rawValue = rawValue }
        /// The caller wants no reply.
        package static let noReplyExpected = Flags(rawValue: 0x1)
        /// The bus must not start a service for the destination.
        package static let noAutoStart = Flags(rawValue: 0x2)
        /// The callee may ask the user to authorize the call.
        package static let allowInteractiveAuthorization = Flags(rawValue: 0x4)
    }

    /// The longest message, header and body together.
    package static let maximumLength = 1 << 27
    /// The fixed part of the header: the bytes before the header field array's elements.
    package static let fixedHeaderLength = 16

    package var kind: Kind
    package var flags: Flags = []
    /// The sender's number for this message (set when it is sent).
    package var serial: UInt32 = 0
    package var path: String?
    package var interface: String?
    package var member: String?
    package var errorName: String?
    /// The serial of the call this message answers.
    package var replySerial: UInt32?
    package var destination: String?
    package var sender: String?
    package var body: [DBusValue] = []

    package init(kind: Kind) { self.kind = kind }

    /// A method call of `interface.member` on `path` at `destination`, with `arguments`.
    package static func methodCall(
        destination: String?, path: String, interface: String?, member: String, arguments: [DBusValue] = []
    ) -> DBusMessage {
        var message = DBusMessage(kind: .methodCall)
        message.destination = destination
        message.path = path
        message.interface = interface
        message.member = member
        message.body = arguments
        return message
    }

    /// A signal `interface.member` from `path`, with `arguments`.
    package static func signal(path: String, interface: String, member: String, arguments: [DBusValue] = []) -> DBusMessage {
        var message = DBusMessage(kind: .signal)
        message.path = path
        message.interface = interface
        message.member = member
        message.body = arguments
        return message
    }

    /// The body's signature.
    package var signature: String { body.map(\.type.signature).joined() }

    /// The message's bytes, little-endian.
    ///
    /// - Throws: `DBusError.invalidMessage` when a required field is missing, a name is invalid
    ///   or a value breaks a marshalling rule.
    package func encoded() throws -> [UInt8] {
        try validateHeader()
        guard serial != 0 else { throw DBusError.invalidMessage("a message's serial is 0") }
        let signature = self.signature
        var bodyWriter = DBusWriter()
        for value in body { try bodyWriter.write(value) }
        var fields: [DBusValue] = []
        func field(_ code: UInt8, _ value: DBusValue?) {
            if let value { fields.append(.structure([.byte(code), .variant(value)])) }
        }
        field(1, path.map(DBusValue.objectPath))
        field(2, interface.map(DBusValue.string))
        field(3, member.map(DBusValue.string))
        field(4, errorName.map(DBusValue.string))
        field(5, replySerial.map(DBusValue.uint32))
        field(6, destination.map(DBusValue.string))
        field(7, sender.map(DBusValue.string))
        field(8, body.isEmpty ? nil : .signature(signature))
        var writer = DBusWriter()
        try writer.write(.byte(UInt8(ascii: "l")))
        try writer.write(.byte(kind.rawValue))
        try writer.write(.byte(flags.rawValue))
        try writer.write(.byte(1))
        try writer.write(.uint32(UInt32(bodyWriter.bytes.count)))
        try writer.write(.uint32(serial))
        try writer.write(.array(.structure([.byte, .variant]), fields))
        writer.pad(to: 8)
        let bytes = writer.bytes + bodyWriter.bytes
        guard bytes.count <= Self.maximumLength else { throw DBusError.invalidMessage("a message over 128 MiB") }
        return bytes
    }

    /// The length of the whole message that `prefix` starts, once its fixed header is there
    /// (nil before: fewer than 16 bytes).
    ///
    /// - Throws: `DBusError.invalidMessage` for a wrong endianness byte or version, or announced
    ///   lengths over the limits.
    package static func length(ofMessageStartingWith prefix: ArraySlice<UInt8>) throws -> Int? {
        guard prefix.count >= fixedHeaderLength else { return nil }
        let start = prefix.startIndex
        let bigEndian: Bool
        switch prefix[start] {
        case UInt8(ascii: "l"): bigEndian = false
        case UInt8(ascii: "B"): bigEndian = true
        default: throw DBusError.invalidMessage("the endianness byte is neither 'l' nor 'B'")
        }
        guard prefix[start + 3] == 1 else { throw DBusError.invalidMessage("a major protocol version other than 1") }
        func uint32(at index: Int) -> Int {
            let bytes = (0..<4).map { UInt32(prefix[start + index + $0]) }
            let value = bigEndian
                ? bytes[0] << 24 | bytes[1] << 16 | bytes[2] << 8 | bytes[3]
                : bytes[3] << 24 | bytes[2] << 16 | bytes[1] << 8 | bytes[0]
            return Int(value)
        }
        let bodyLength = uint32(at: 4)
        let fieldsLength = uint32(at: 12)
        guard bodyLength <= maximumLength, fieldsLength <= DBusReader.maximumArrayLength else {
            throw DBusError.invalidMessage("a message over 128 MiB")
        }
        let headerLength = (fixedHeaderLength + fieldsLength + 7) / 8 * 8
        let total = headerLength + bodyLength
        guard total <= maximumLength else { throw DBusError.invalidMessage("a message over 128 MiB") }
        return total
    }

    /// Decodes exactly one whole message.
    ///
    /// - Throws: `DBusError.invalidMessage` naming the first rule the bytes break.
    package init(decoding bytes: [UInt8]) throws {
        guard let length = try Self.length(ofMessageStartingWith: bytes[...]) else {
            throw DBusError.invalidMessage("a message shorter than its fixed header")
        }
        guard length == bytes.count else { throw DBusError.invalidMessage("the message's length is not its announced length") }
        let bigEndian = bytes[0] == UInt8(ascii: "B")
        var reader = DBusReader(bytes, bigEndian: bigEndian, offset: 1)
        guard case .byte(let type) = try reader.read(.byte), let kind = Kind(rawValue: type) else {
            throw DBusError.invalidMessage("an unknown message type")
        }
        self.init(kind: kind)
        guard case .byte(let flags) = try reader.read(.byte) else { throw DBusError.invalidMessage("no flags") }
        self.flags = Flags(rawValue: flags)
        _ = try reader.read(.byte)  // the version, checked with the length
        guard case .uint32(let bodyLength) = try reader.read(.uint32),
            case .uint32(let serial) = try reader.read(.uint32), serial != 0
        else { throw DBusError.invalidMessage("a message's serial is 0") }
        self.serial = serial
        guard case .array(_, let fields) = try reader.read(.array(.structure([.byte, .variant]))) else {
            throw DBusError.invalidMessage("no header fields")
        }
        var signature = ""
        var seen = Set<UInt8>()
        for field in fields {
            guard case .structure(let parts) = field, parts.count == 2, case .byte(let code) = parts[0],
                case .variant(let value) = parts[1]
            else { throw DBusError.invalidMessage("a malformed header field") }
            guard code != 0 else { throw DBusError.invalidMessage("a header field of code 0") }
            guard code > 9 || seen.insert(code).inserted else { throw DBusError.invalidMessage("a header field given twice") }
            switch (code, value) {
            case (1, .objectPath(let text)): path = text
            case (2, .string(let text)): interface = text
            case (3, .string(let text)): member = text
            case (4, .string(let text)): errorName = text
            case (5, .uint32(let number)): replySerial = number
            case (6, .string(let text)): destination = text
            case (7, .string(let text)): sender = text
            case (8, .signature(let text)): signature = text
            case (9, .uint32): break  // descriptors: never negotiated, so none arrive
            case (1...9, _): throw DBusError.invalidMessage("a header field of the wrong type")
            default: break  // unknown fields are ignored
            }
        }
        try reader.align(to: 8)
        guard reader.offset + Int(bodyLength) == bytes.count else {
            throw DBusError.invalidMessage("the body's length does not match the message")
        }
        var bodyReader = DBusReader(bytes, bigEndian: bigEndian, offset: reader.offset)
        for type in try DBusSignature.parse(signature) {
            body.append(try bodyReader.read(type))
        }
        guard bodyReader.isAtEnd else { throw DBusError.invalidMessage("bytes after the body's values") }
        try validateHeader()
    }

    /// The fields each type requires, and valid names in the fields present.
    private func validateHeader() throws {
        switch kind {
        case .methodCall:
            guard path != nil, member != nil else { throw DBusError.invalidMessage("a method call without a path or member") }
        case .signal:
            guard path != nil, interface != nil, member != nil else {
                throw DBusError.invalidMessage("a signal without a path, interface or member")
            }
            guard path != "/org/freedesktop/DBus/Local", interface != "org.freedesktop.DBus.Local" else {
                throw DBusError.invalidMessage("a signal on the reserved local path or interface")
            }
        case .methodReturn:
            guard replySerial != nil else { throw DBusError.invalidMessage("a method return without a reply serial") }
        case .error:
            guard errorName != nil, replySerial != nil else {
                throw DBusError.invalidMessage("an error without a name or reply serial")
            }
        }
        if let path, !DBusName.isValidObjectPath(path) { throw DBusError.invalidMessage("an invalid object path") }
        if let interface, !DBusName.isValidInterface(interface) { throw DBusError.invalidMessage("an invalid interface name") }
        if let errorName, !DBusName.isValidInterface(errorName) { throw DBusError.invalidMessage("an invalid error name") }
        if let member, !DBusName.isValidMember(member) { throw DBusError.invalidMessage("an invalid member name") }
        if let destination, !DBusName.isValidBusName(destination) { throw DBusError.invalidMessage("an invalid destination") }
        if let sender, !DBusName.isValidBusName(sender) { throw DBusError.invalidMessage("an invalid sender") }
        if replySerial == 0 { throw DBusError.invalidMessage("a reply serial of 0") }
    }
}
