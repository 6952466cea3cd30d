import DoseCore
import Testing

@Suite("the sign-up policy (serve --sign-up)")
struct SignUpPolicyTests {
    @Test(
        "each policy reads from its words and says whom it lets make an account: from an invitation, and uninvited from the sign-up page",
        arguments: [
            ("closed", "a@example.org", false, false), ("invited", "a@example.org", true, false), ("Invited", "a@example.org", true, false),
            ("domain=clinic.example.org", "a@clinic.example.org", true, true), ("domain=clinic.example.org", "A@Clinic.Example.org", true, true),
            ("domain=clinic.example.org", "a@example.org", false, false), ("domain=clinic.example.org", "a@notclinic.example.org", false, false),
            ("domain=clinic.example.org", "a@sub.clinic.example.org", false, false),
            ("domain=clinic.example.org", "clinic.example.org@x.org", false, false),
        ])
    func policies(text: String, address: String, invited: Bool, uninvited: Bool) throws {
        let policy = try SignUpPolicy.parse(text)
        #expect(policy.allowsInvitee(try EmailAddress(address)) == invited)
        #expect(policy.allowsSignUp(try EmailAddress(address)) == uninvited)
        #expect((policy.openDomain != nil) == text.hasPrefix("domain="))
        #expect(try SignUpPolicy.parse(policy.description) == policy)
    }

    @Test("anything else is refused by name, with what is allowed", arguments: ["open", "", "domain=", "domain=not a domain", "domain=@x.org"])
    func refusals(text: String) {
        #expect {
            _ = try SignUpPolicy.parse(text)
        } throws: { error in
            "\(error)".contains("sign-up") && "\(error)".contains("domain=DOMAIN")
        }
    }
}
