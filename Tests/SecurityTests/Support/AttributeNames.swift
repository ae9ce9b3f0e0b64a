import Foundation

@testable import KeychainCore

/// Tests name attributes by Apple's short names, as the dictionaries they mirror do: a string
/// literal stands for the catalog descriptor with that short name (`request.attributes["svce"]`,
/// `["acct": .string("me")]`), so test code reads like the SecItem dictionaries it checks.
extension AttributeDescriptor: ExpressibleByStringLiteral {
    public convenience init(stringLiteral name: String) {
        guard let attribute = AttributeCatalog.descriptor(named: name) else { preconditionFailure("no attribute \(name)") }
        self.init(
            attribute.ordinal, attribute.name, attribute.constant, attribute.kind, classes: attribute.classes,
            primaryKeyOf: attribute.primaryKeyOf, maintainer: attribute.maintainer)
    }
}
