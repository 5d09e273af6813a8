// topupd console: the only script. Every page works without it; it adds
// progress to stock uploads, sending the file's codes in one request.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("stock-upload");
  if (form) form.addEventListener("submit", uploadInChunks);
});

async function uploadInChunks(event) {
  const form = event.currentTarget;
  const file = form.querySelector("input[type=file]").files[0];
  if (!file || !window.fetch || !form.dataset.chunkUrl) return; // the plain form posts the file
  event.preventDefault();
  const bar = document.getElementById("upload-progress");
  const out = document.getElementById("upload-result");
  const pid = form.querySelector("[name=pid]").value;
  const csrf = document.querySelector("meta[name=csrf-token]").content;
  const codes = (await file.text()).split(/\r?\n/).map(l => l.split(",")[0].trim()).filter(c => c && !/^code$/i.test(c));
  // One file is one request, one transaction and one batch: added whole
  // or not at all.
  const out0 = document.getElementById("available-" + pid);
  if (codes.length === 0) {
    out.textContent = `The file had no codes: nothing was added; ${pid} holds ${out0 ? out0.textContent : "its"} available.`;
    out.dataset.done = "empty";
    return;
  }
  bar.max = 1; bar.removeAttribute("value"); bar.hidden = false;
  out.textContent = `Sending ${codes.length} codes…`;
  form.querySelector("button").disabled = true;
  try {
    const resp = await fetch(form.dataset.chunkUrl, {
      method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf},
      body: JSON.stringify({pid: pid, codes: codes, costUsd: form.querySelector("[name=costUsd]").value, note: form.querySelector("[name=note]").value}),
    });
    const body = await resp.json();
    if (!resp.ok) throw new Error(body.error || resp.statusText);
    bar.max = 1; bar.value = 1;
    out.textContent = `Done: ${body.added} added, ${body.duplicates} duplicates, ${body.available} available.`;
    if (out0) out0.textContent = body.available;
    document.getElementById("upload-batch").textContent = body.batchId ? `In batch ${body.batchId} of ${pid}.` : "Every code was a duplicate: no batch was made.";
    out.dataset.done = "true";
  } catch (e) {
    out.textContent = `Stopped: ${e.message}. Nothing was added: the upload is all or nothing.`;
    out.dataset.done = "error";
  } finally {
    form.querySelector("button").disabled = false;
  }
}
