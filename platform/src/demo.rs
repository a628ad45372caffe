//! The demo members standalone seeds on first start, shared so that auth (credentials) and
//! accounts (member records) seed the same people under the same ids. The README lists them.

/// Password of every demo member.
pub const DEMO_PASSWORD: &str = "MiClub2026!";

#[derive(Debug, Clone, Copy)]
pub struct DemoMember {
    pub member_id: &'static str,
    /// Canonical RUT.
    pub rut: &'static str,
    pub name: &'static str,
    pub last_name: &'static str,
    pub mother_surname: &'static str,
    pub email: &'static str,
    pub phone_number: &'static str,
    pub birth_date: &'static str,
    pub gender_id: i32,
    pub email_verified: bool,
    pub has_club_account: bool,
    /// Seeded with a legacy (bcrypt) hash, rehashed with argon2id on first login.
    pub legacy_password: bool,
    /// Opening balance in pesos, built from seeded movements.
    pub balance: i64,
}

pub const MEMBERS: &[DemoMember] = &[
    DemoMember {
        member_id: "7b0f6d2e-0000-4000-8000-000000000001",
        rut: "11111111-1",
        name: "Ana",
        last_name: "González",
        mother_surname: "Pérez",
        email: "ana@example.cl",
        phone_number: "+56911111111",
        birth_date: "1988-03-14",
        gender_id: 1,
        email_verified: true,
        has_club_account: true,
        legacy_password: false,
        balance: 12_345,
    },
    DemoMember {
        member_id: "7b0f6d2e-0000-4000-8000-000000000002",
        rut: "22222222-2",
        name: "Bruno",
        last_name: "Muñoz",
        mother_surname: "Rojas",
        email: "bruno@example.cl",
        phone_number: "+56922222222",
        birth_date: "1979-11-02",
        gender_id: 2,
        email_verified: true,
        has_club_account: false,
        legacy_password: false,
        balance: 0,
    },
    DemoMember {
        member_id: "7b0f6d2e-0000-4000-8000-000000000003",
        rut: "33333333-3",
        name: "Carla",
        last_name: "Soto",
        mother_surname: "Vidal",
        email: "carla@example.cl",
        phone_number: "+56933333333",
        birth_date: "1995-07-21",
        gender_id: 1,
        email_verified: false,
        has_club_account: true,
        legacy_password: false,
        balance: 0,
    },
    DemoMember {
        member_id: "7b0f6d2e-0000-4000-8000-000000000004",
        rut: "44444444-4",
        name: "Diego",
        last_name: "Fuentes",
        mother_surname: "Araya",
        email: "diego@example.cl",
        phone_number: "+56944444444",
        birth_date: "1969-01-30",
        gender_id: 3,
        email_verified: true,
        has_club_account: true,
        legacy_password: true,
        balance: 4_560,
    },
];

#[cfg(test)]
mod tests {
    use crate::identity::Rut;

    #[test]
    fn every_demo_rut_is_a_valid_canonical_rut() {
        for member in super::MEMBERS {
            assert_eq!(Rut::parse(member.rut).unwrap().canonical(), member.rut);
        }
    }
}
