/** Demo users the CLI can act as (`--user <n>`); each gets its own holder key, so each is a different wallet. */
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
      service_id: 'demo-user-1',
      eduperson_principal_name: 'alice@demo.example',
      email: 'alice@demo.example',
      given_name: 'Alice',
      family_name: 'Doe',
    },
  },
  {
    number: 2,
    claims: {
      service_id: 'demo-user-2',
      eduperson_principal_name: 'bob@demo.example',
      email: 'bob@demo.example',
      given_name: 'Bob',
      family_name: 'Smith',
    },
  },
  {
    number: 3,
    claims: {
      service_id: 'demo-user-3',
      eduperson_principal_name: 'carol@demo.example',
      email: 'carol@demo.example',
      given_name: 'Carol',
      family_name: 'Jones',
    },
  },
];

export function findDemoPersona(number: number): DemoPersona | undefined {
  return DEMO_PERSONAS.find((persona) => persona.number === number);
}
