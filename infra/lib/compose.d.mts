export function renderCompose(): string;
