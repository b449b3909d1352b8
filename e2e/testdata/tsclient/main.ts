// A first program of a front-end team: it calls the orgboard service through the generated
// TypeScript SDK (@videotpl/orgboard-sdk, built by `make sdk`) and prints what it got as JSON.
//
//   node dist/main.js <baseUrl> <token> <organization name>
import { createOrgboardClient, apiVersion, type Schemas } from "@videotpl/orgboard-sdk";

const [baseUrl, token, name] = process.argv.slice(2);
if (!baseUrl || !token || !name) {
  throw new Error("usage: main.js <baseUrl> <token> <name>");
}

const api = createOrgboardClient({ baseUrl, token });

const created = await api.POST("/api/orgboard/organizations", { body: { name } });
if (!created.data) {
  throw new Error(`create organization: ${created.response.status} ${JSON.stringify(created.error)}`);
}
const org: Schemas["Organization"] = created.data;

const list = await api.GET("/api/orgboard/organizations");
const names = (list.data?.data ?? []).map((o) => o.name);

// Without a token the service answers 401 with a problem+json body, typed as the error.
const anonymous = createOrgboardClient({ baseUrl });
const denied = await anonymous.GET("/api/orgboard/organizations");

// @ts-expect-error -- an unknown path does not compile: the client is typed by the spec.
void api.GET("/api/orgboard/no-such-path");

console.log(JSON.stringify({
  apiVersion,
  created: { id: org.id, name: org.name, status: created.response.status },
  listStatus: list.response.status,
  names,
  deniedStatus: denied.response.status,
  deniedProblemStatus: denied.error?.status ?? null,
}));
