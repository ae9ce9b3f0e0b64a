import KeychainDBus
import Testing

/// Match rules as the bus parses them: quoted values, a quote inside one escaped.
@Suite("D-Bus match rules")
struct DBusMatchRuleTests {
    @Test("a rule renders its keys in order, each value quoted, a quote written '\\''")
    func rendering() {
        let rule = DBusMatchRule(sender: "org.freedesktop.login1", member: "Lock", path: "/a", arguments: [2: "x", 0: "it's"])
        #expect(rule.description == #"type='signal',sender='org.freedesktop.login1',member='Lock',path='/a',arg0='it'\''s',arg2='x'"#)
        #expect(DBusMatchRule(type: nil, interface: "a.b").description == "interface='a.b'")
    }
}
