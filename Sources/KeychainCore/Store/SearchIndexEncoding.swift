import Foundation

/// The bytes a search-index token authenticates, and the tokens an item holds.
///
/// A token names one value of one attribute of one class: HMAC-SHA256, under the search key
/// derived from the keybag's index key, over `ix ‖ 0 ‖ class` and the attribute encoded as a
/// primary-key member is (`PrimaryKeyEncoding.append`: values the matching calls equal encode
/// alike), truncated to `tokenLength` bytes. Items sharing a value of an attribute share its
/// token, and nothing else does (but for a 2^-128 collision, which costs only a decryption: every
/// row the index selects is opened and matched in full). The access group is an attribute like
/// the others here, not a part of each token, so one token finds an attribute's value in every
/// group.
enum SearchIndexEncoding {
    /// The bytes of a token (the first bytes of the HMAC).
    static let tokenLength = 16

    /// The message for `value` of `attribute` in `itemClass`.
    static func message(itemClass: ItemClass, attribute: AttributeDescriptor, value: AttributeValue) -> [UInt8] {
        var bytes = Array("ix\u{0}\(itemClass.rawValue)".utf8)
        bytes.reserveCapacity(bytes.count + 64)
        var value = value
        // Text of a kind compared as text (not as bytes) is equal to every canonically equivalent
        // spelling of it: it is tokenized in one of them (NFC). ASCII text is NFC already (no
        // ASCII character decomposes or composes), and skips Foundation's normalization.
        if attribute.comparesAsText, case .string(let text) = value, !text.utf8.allSatisfy({ $0 < 0x80 }) {
            value = .string(text.precomposedStringWithCanonicalMapping)
        }
        PrimaryKeyEncoding.append(attribute, value: value, to: &bytes)
        return bytes
    }

    /// Splits a row's concatenated tokens (`StoredRow.searchTokens`) into tokens; a trailing
    /// fragment (a damaged column) is left out.
    static func split(_ tokens: Data) -> [Data] {
        stride(from: 0, to: tokens.count - tokenLength + 1, by: tokenLength).map { offset in
            let start = tokens.startIndex + offset
            return Data(tokens[start..<start + tokenLength])
        }
    }
}

extension ItemSealer {
    /// The search token of `value` of `attribute` in `itemClass`.
    func searchToken(itemClass: ItemClass, attribute: AttributeDescriptor, value: AttributeValue) throws -> Data {
        let code = try keyRing.index.search.authenticationCode(
            for: SearchIndexEncoding.message(itemClass: itemClass, attribute: attribute, value: value))
        return Data(code.prefix(SearchIndexEncoding.tokenLength))
    }

    /// The tokens of every indexed attribute `attributes` holds, concatenated in catalog order
    /// (the row keeps them, so that a delete removes its index entries without opening the row).
    func searchTokens(itemClass: ItemClass, attributes: ItemAttributes) throws -> Data {
        var tokens = Data()
        for attribute in AttributeCatalog.searchIndexed(of: itemClass) {
            guard let value = attributes[attribute] else { continue }
            tokens.append(try searchToken(itemClass: itemClass, attribute: attribute, value: value))
        }
        return tokens
    }
}
