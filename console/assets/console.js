// topupd console: the only script. Every page works without it; it adds
// progress to stock uploads, sending the file's codes in chunks.
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
  const chunk = 5000;
  // One file is one batch: the first chunk starts it with the form's cost
  // and note, the others name the batch it was answered.
  const first = {costUsd: form.querySelector("[name=costUsd]").value, note: form.querySelector("[name=note]").value};
  let added = 0, duplicates = 0, available = 0, batchId = 0;
  bar.max = codes.length; bar.value = 0; bar.hidden = false;
  form.querySelector("button").disabled = true;
  try {
    for (let i = 0; i < codes.length; i += chunk) {
      const resp = await fetch(form.dataset.chunkUrl, {
        method: "POST", credentials: "same-origin",
        headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf},
        body: JSON.stringify(Object.assign({pid: pid, codes: codes.slice(i, i + chunk)}, batchId ? {batchId: batchId} : first)),
      });
      const body = await resp.json();
      if (!resp.ok) throw new Error(body.error || resp.statusText);
      added += body.added; duplicates += body.duplicates; available = body.available; batchId = body.batchId;
      bar.value = Math.min(i + chunk, codes.length);
      out.textContent = `Sent ${bar.value} of ${codes.length}: ${added} added, ${duplicates} duplicates.`;
    }
    out.textContent = `Done: ${added} added, ${duplicates} duplicates, ${available} available.`;
    document.getElementById("upload-batch").textContent = `In batch ${batchId} of ${pid}.`;
    out.dataset.done = "true";
  } catch (e) {
    out.textContent = `Stopped: ${e.message}. Codes sent before this were added; send the file again to add the rest.`;
    out.dataset.done = "error";
  } finally {
    form.querySelector("button").disabled = false;
  }
}
