// What a request that must fail failed with: its JSON-RPC code and message (the SDK clients throw
// errors that carry both). A request that succeeds fails the test.
export async function rpcFailure(call: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await call;
  } catch (error) {
    const { code, message } = error as { code: number; message: string };
    return { code, message };
  }
  throw new Error('expected the request to fail');
}
