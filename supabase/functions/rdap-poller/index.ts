// Placeholder until its issue lands: answers 501 so the gateway can load it.
Deno.serve(() =>
  Response.json({ error: "not_implemented", message: "This function is not implemented yet." }, {
    status: 501,
  })
);
