// A CommonJS program (its package.json says "type": "commonjs", so tsc emits require()): it
// loads the SDK's CommonJS build and lists the caller's organizations.
//
//   node dist/main.js <baseUrl> <token>
import { createOrgboardClient, apiVersion } from "@videotpl/orgboard-sdk";

async function main(): Promise<void> {
  const [baseUrl, token] = process.argv.slice(2);
  if (!baseUrl || !token) {
    throw new Error("usage: main.js <baseUrl> <token>");
  }
  const api = createOrgboardClient({ baseUrl, token });
  const list = await api.GET("/api/orgboard/organizations");
  console.log(JSON.stringify({
    apiVersion,
    resolved: require.resolve("@videotpl/orgboard-sdk"),
    listStatus: list.response.status,
    count: list.data?.data.length ?? null,
  }));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
