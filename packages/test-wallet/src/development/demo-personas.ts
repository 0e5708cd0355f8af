/**
 * Demo users the CLI can act as (`--user <n>`); each gets its own holder key, so each is a different wallet. Each is
 * the same person as one user of the embedded institutional provider (@tessera/dev-idp: 1 alice, 2 bob, 3 carol),
 * with the same service claim, eduperson_principal_name, email and names, so that identity verification binds the
 * wallet to that person (the bridge compares the identifying claims) and both sign-in paths show one person.
 */
export interface DemoPersona {
  number: number;
  claims: {
    service_id: string;
    eduperson_principal_name: string;
    email: string;
    given_name: string;
    family_name: string;
  };
}

export const DEMO_PERSONAS: readonly DemoPersona[] = [
  {
    number: 1,
    claims: {
      service_id: 'S-1001',
      eduperson_principal_name: 'alice@uni.example',
      email: 'alice.archer@uni.example',
      given_name: 'Alice',
      family_name: 'Archer',
    },
  },
  {
    number: 2,
    claims: {
      service_id: 'S-1002',
      eduperson_principal_name: 'bob@uni.example',
      email: 'bob.baker@uni.example',
      given_name: 'Bob',
      family_name: 'Baker',
    },
  },
  {
    number: 3,
    claims: {
      service_id: 'S-1003',
      eduperson_principal_name: 'carol@uni.example',
      email: 'carol.cooper@uni.example',
      given_name: 'Carol',
      family_name: 'Cooper',
    },
  },
];

export function findDemoPersona(number: number): DemoPersona | undefined {
  return DEMO_PERSONAS.find((persona) => persona.number === number);
}
