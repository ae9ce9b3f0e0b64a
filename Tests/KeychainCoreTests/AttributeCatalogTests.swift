import Testing

@testable import KeychainCore

@Suite("The attribute catalog")
struct AttributeCatalogTests {
    @Test(
        "each class's primary key is Apple's per-class attributes (a key's token ID among them) plus access group and synchronizable",
        arguments: [
            (ItemClass.genericPassword, ["svce", "acct"]),
            (.internetPassword, ["acct", "srvr", "path", "port", "ptcl", "atyp", "sdmn"]),
            (.key, ["atag", "klbl", "type", "kcls", "esiz", "bsiz", "tkid"]),
            (.certificate, ["issr", "slnr", "ctyp"]),
        ])
    func primaryKeys(itemClass: ItemClass, members: [String]) {
        let names = Set(AttributeCatalog.primaryKey(of: itemClass).map(\.name))
        #expect(names == Set(members + ["agrp", "sync"]))
    }

    @Test("identities have no primary key of their own and accept certificate and key attributes")
    func identity() {
        #expect(AttributeCatalog.primaryKey(of: .identity).isEmpty)
        #expect(AttributeCatalog.attribute("issr", in: .identity) != nil)
        #expect(AttributeCatalog.attribute("atag", in: .identity) != nil)
        #expect(AttributeCatalog.attribute("svce", in: .identity) == nil)
    }

    @Test("class-specific attributes exist only on their classes")
    func classMembership() {
        #expect(AttributeCatalog.attribute("gena", in: .genericPassword) != nil)
        #expect(AttributeCatalog.attribute("gena", in: .internetPassword) == nil)
        #expect(AttributeCatalog.attribute("svce", in: .internetPassword) == nil)
        #expect(AttributeCatalog.attribute("atag", in: .certificate) == nil)
        #expect(AttributeCatalog.attribute("pdmn", in: .certificate) != nil)
    }

    @Test("every short name is unique and four characters long")
    func names() {
        let names = AttributeCatalog.attributes.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(names.allSatisfy { $0.utf8.count == 4 })
    }
}
